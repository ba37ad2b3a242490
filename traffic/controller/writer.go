package controller

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/types/known/wrapperspb"
	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1apply "istio.io/client-go/pkg/applyconfiguration/meta/v1"
	applyv1 "istio.io/client-go/pkg/applyconfiguration/networking/v1"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	istioscheme "istio.io/client-go/pkg/clientset/versioned/scheme"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/istio"
)

// FieldManager is ARTT's server-side apply identity.
const FieldManager = "artt-traffic"

// writeResult says what happened to one DestinationRule.
type writeResult string

const (
	written   writeResult = "written"
	unchanged writeResult = "unchanged"
	conflict  writeResult = "conflict"
	failed    writeResult = "failed"
	dryRun    writeResult = "dry-run"
)

// target is the DestinationRule ARTT writes for a host: the user's, when
// one exists for that host, else ARTT's own.
type target struct {
	namespace, name string
	own             bool
}

// key names the rule as namespace/name.
func (t target) key() string { return t.namespace + "/" + t.name }

// RuleName is the name of the DestinationRule ARTT creates for a workload
// whose namespace has no rule of the user's for its host.
func RuleName(workload string) string { return "artt-" + workload }

// matchesHost reports whether a DestinationRule's host is the component's:
// the full name or the short forms Istio resolves in the same namespace.
func matchesHost(ruleHost string, c component) bool {
	full := c.host
	short := strings.TrimSuffix(full, ".svc.cluster.local")
	return ruleHost == full || ruleHost == short || ruleHost == short+".svc" ||
		(strings.HasPrefix(full, ruleHost+".") && ruleHost == c.workload)
}

// chooseTarget picks the rule to write: the user's rule for the host
// (userRule), or ARTT's own.
func chooseTarget(rules []*networkingv1.DestinationRule, c component) target {
	if r := userRule(rules, c); r != nil {
		return target{namespace: c.namespace, name: r.Name}
	}
	return target{namespace: c.namespace, name: RuleName(c.workload), own: true}
}

// userRule is the user's DestinationRule for the component's host (the
// oldest, as Istio itself uses the oldest), nil when there is none.
func userRule(rules []*networkingv1.DestinationRule, c component) *networkingv1.DestinationRule {
	var oldest *networkingv1.DestinationRule
	for _, r := range rules {
		if r.Namespace != c.namespace || r.Name == RuleName(c.workload) || !matchesHost(r.Spec.GetHost(), c) {
			continue
		}
		if oldest == nil || cmp.Or(r.CreationTimestamp.Compare(oldest.CreationTimestamp.Time), strings.Compare(r.Name, oldest.Name)) < 0 {
			oldest = r
		}
	}
	return oldest
}

// pickOf is how a component's callers pick a pod without a table, given
// its user's rule (userRule, nil for none): that rule's
// loadBalancer.simple, else LEAST_REQUEST: Istio's default for Envoy, and
// what ARTT writes itself on gRPC (DataPlaneGRPC), whose policy is then
// not the user's.
func pickOf(r *networkingv1.DestinationRule) traffic.Pick {
	if r == nil {
		return traffic.PickByQueue
	}
	return traffic.PickOf(usersSimple(r))
}

// applyConfig is the part of a DestinationRule ARTT owns. enabled = false
// (a component left to Envoy) switches locality load balancing off rather
// than leaving it unset: Istio turns it on by itself when the rule has
// outlier detection, and would then keep each caller's traffic on its own
// node (one locality per node). On gRPC it owns loadBalancer.simple too
// (DataPlaneGRPC): ROUND_ROBIN with a table, LEAST_REQUEST without.
func applyConfig(t target, c component, ds []istio.Distribute, enabled bool, state string) *applyv1.DestinationRuleApplyConfiguration {
	var dist []*networkingapi.LocalityLoadBalancerSetting_Distribute
	for _, d := range ds {
		dist = append(dist, &networkingapi.LocalityLoadBalancerSetting_Distribute{From: d.From, To: d.To})
	}
	lb := &networkingapi.LoadBalancerSettings{
		LocalityLbSetting: &networkingapi.LocalityLoadBalancerSetting{
			Enabled:    wrapperspb.Bool(enabled),
			Distribute: dist,
		},
	}
	if c.setsSimple {
		simple := networkingapi.LoadBalancerSettings_LEAST_REQUEST
		if enabled {
			simple = networkingapi.LoadBalancerSettings_ROUND_ROBIN
		}
		lb.LbPolicy = &networkingapi.LoadBalancerSettings_Simple{Simple: simple}
	}
	spec := &networkingapi.DestinationRule{TrafficPolicy: &networkingapi.TrafficPolicy{LoadBalancer: lb}}
	cfg := applyv1.DestinationRule(t.name, t.namespace)
	if t.own {
		spec.Host = c.host
		cfg.WithLabels(map[string]string{ManagedByLabel: FieldManager})
		if c.uid != "" {
			// The Deployment owns the rule ARTT created for it: the garbage
			// collector deletes the rule, and the state it carries, with
			// the Deployment.
			cfg.WithOwnerReferences(metav1apply.OwnerReference().WithAPIVersion("apps/v1").WithKind("Deployment").
				WithName(c.workload).WithUID(c.uid))
		}
	}
	if state != "" {
		cfg.WithAnnotations(map[string]string{StateAnnotation: state})
	}
	cfg.Spec = spec
	return cfg
}

// fingerprint identifies the content written, to skip unchanged writes.
// The state annotation is left out: it changes with every measurement, and
// a rule is written for its weights; the state then goes along.
func fingerprint(t target, c component, ds []istio.Distribute, enabled bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s|%v|%s|%v|%v", t.namespace, t.name, t.own, c.host, enabled, c.setsSimple)
	for _, d := range ds {
		keys := make([]string, 0, len(d.To))
		for k := range d.To {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Fprintf(&b, "|%s:", d.From)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%d,", k, d.To[k])
		}
	}
	return b.String()
}

// writer applies rules through Istio's clientset; several writes may run
// at once.
type writer struct {
	istio istioclient.Interface
	mu    sync.Mutex
	// applied remembers the last content written per rule.
	applied map[string]string
}

// keepOnly forgets what was written to the rules not in keys (their
// components left the cluster, or route nothing now): a cluster where
// Deployments come and go would otherwise grow the map without bound. A
// rule forgotten here is written again, once, if it comes back.
func (w *writer) keepOnly(keys map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range w.applied {
		if !keys[k] {
			delete(w.applied, k)
		}
	}
}

func (w *writer) lastApplied(key string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.applied[key]
}

// changes reports whether the rule's content differs from what was last
// written, so that write would apply it.
func (w *writer) changes(t target, c component, ds []istio.Distribute, enabled bool) bool {
	return w.lastApplied(t.key()) != fingerprint(t, c, ds, enabled)
}

// write validates and applies one rule, with the policy's state for the
// component (StateAnnotation; "" for none). A field-manager conflict is
// returned as conflict (never forced); transient API errors are retried
// with backoff.
func (w *writer) write(ctx context.Context, t target, c component, ds []istio.Distribute, enabled bool, state string, dry bool) (writeResult, error) {
	if err := istio.Validate(ds); err != nil {
		return failed, fmt.Errorf("refusing to write %s/%s, Istio would reject it: %w", t.namespace, t.name, err)
	}
	fp := fingerprint(t, c, ds, enabled)
	key := t.key()
	if w.lastApplied(key) == fp {
		return unchanged, nil
	}
	if dry {
		return dryRun, nil
	}
	body, err := json.Marshal(applyConfig(t, c, ds, enabled, state))
	if err != nil {
		return failed, fmt.Errorf("encode %s/%s: %w", t.namespace, t.name, err)
	}
	force := false // a conflict is reported, never overridden
	opts := metav1.PatchOptions{FieldManager: FieldManager, Force: &force}
	err = retry.OnError(wait.Backoff{Steps: 4, Duration: 50e6, Factor: 2, Jitter: 0.1}, retriable, func() error {
		// The typed client's Apply, without decoding the rule it answers
		// with: ARTT does not read it, and decoding a rule of a hundred
		// localities through Istio's JSON unmarshaller cost the controller
		// more CPU than sending it.
		return w.istio.NetworkingV1().RESTClient().Patch(types.ApplyPatchType).
			Namespace(t.namespace).Resource("destinationrules").Name(t.name).
			VersionedParams(&opts, istioscheme.ParameterCodec).Body(body).Do(ctx).Error()
	})
	switch {
	case err == nil:
		w.mu.Lock()
		w.applied[key] = fp
		w.mu.Unlock()
		return written, nil
	case apierrors.IsConflict(err):
		return conflict, fmt.Errorf("another field manager owns part of %s/%s's localityLbSetting; not forcing: %w", t.namespace, t.name, err)
	default:
		return failed, fmt.Errorf("apply %s/%s: %w", t.namespace, t.name, err)
	}
}

// retriable are the errors worth retrying within a cycle.
func retriable(err error) bool {
	return apierrors.IsServerTimeout(err) || apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err) ||
		apierrors.IsTimeout(err) || apierrors.IsInternalError(err) || errors.Is(err, context.DeadlineExceeded)
}

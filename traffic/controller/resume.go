package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/traffic"
)

// StateAnnotation holds, on the DestinationRule ARTT writes for a
// component, what the policy had learned of the component when it wrote
// the rule: the next leader continues from it instead of from nothing. It
// travels with the weights it explains (written in the same apply, so it
// never describes other weights) and goes with the rule.
const StateAnnotation = "traffic.artt.dev/state"

// savedState is the annotation's value: whose state, and the policy's own
// encoding of it.
type savedState struct {
	Component string          `json:"component"`
	Policy    string          `json:"policy"`
	State     json.RawMessage `json:"state"`
}

// stateOf is the annotation value for a component, "" when the policy
// keeps no state to carry.
func (c *Controller) stateOf(component string) string {
	r, ok := c.policy.(traffic.Resumer)
	if !ok {
		return ""
	}
	state, ok := r.State(component)
	if !ok {
		return ""
	}
	b, err := json.Marshal(savedState{Component: component, Policy: c.opts.Policy, State: state})
	if err != nil {
		return ""
	}
	if len(b) > maxStateBytes {
		c.log.Warn("state too large to annotate: a new leader starts this component from nothing", "component", component, "bytes", len(b), "limit", maxStateBytes)
		return ""
	}
	return string(b)
}

// maxStateBytes bounds the state annotation: the apiserver refuses an
// object whose annotations pass 256 KiB in all, and the rule's weights
// must be written whatever the state's size (a component on about a
// thousand nodes reaches it).
const maxStateBytes = 128 << 10

// resume hands the policy the states of the rules in force, once, when this
// instance starts leading. A rule without the annotation, or with another
// policy's, is skipped: its component starts from nothing, as on a new
// cluster. A state is taken only from the rule ARTT writes for the
// component it names (its own, or the user's rule for the component's host
// in the component's namespace): a rule elsewhere could otherwise seed
// another tenant's component.
func (c *Controller) resume(ctx context.Context, now time.Time) {
	r, ok := c.policy.(traffic.Resumer)
	if !ok {
		return
	}
	st, err := c.read(ctx)
	if err == nil {
		st.rules, err = c.withOwnRules(ctx, st)
	}
	if err != nil {
		c.log.Error("reading the rules in force failed: starting from nothing", "error", err)
		return
	}
	states, unreadable := savedStates(st.rules, componentsOf(st.deployments), c.opts.Policy)
	for rule, err := range unreadable {
		c.log.Warn("state annotation refused: its component starts from nothing", "destinationRule", rule, "error", err)
	}
	refused := r.Resume(now, states)
	for component, err := range refused {
		c.log.Warn("state refused: the component starts from nothing", "component", component, "error", err)
	}
	c.tel.resumed.WithLabelValues("resumed").Set(float64(len(states) - len(refused)))
	c.tel.resumed.WithLabelValues("refused").Set(float64(len(refused) + len(unreadable)))
	c.log.Info("resumed the learned state of the rules in force", "components", len(states)-len(refused), "refused", len(refused)+len(unreadable))
}

// withOwnRules is the users' rules (in the cache) and, listed once from
// the API, ARTT's own, which the cache leaves out (CacheOptions), in the
// namespaces of the managed Deployments.
func (c *Controller) withOwnRules(ctx context.Context, st apiState) ([]*networkingv1.DestinationRule, error) {
	rules := st.rules
	namespaces := map[string]bool{}
	for _, d := range st.deployments {
		namespaces[d.Namespace] = true
	}
	own := metav1.ListOptions{LabelSelector: ManagedByLabel + "=" + FieldManager}
	for ns := range namespaces {
		list, err := c.writer.istio.NetworkingV1().DestinationRules(ns).List(ctx, own)
		if err != nil {
			return nil, fmt.Errorf("list artt-traffic's destinationrules in %s: %w", ns, err)
		}
		for i := range list.Items {
			rules = append(rules, list.Items[i])
		}
	}
	return rules, nil
}

// componentsOf is each managed Deployment as a component, by name, with
// the namespace and host its rule is found by.
func componentsOf(deployments []appsv1.Deployment) map[string]component {
	out := make(map[string]component, len(deployments))
	for _, d := range deployments {
		name := componentName(d.Namespace, d.Name)
		out[name] = component{name: name, namespace: d.Namespace, workload: d.Name, host: hostOf(d)}
	}
	return out
}

// savedStates reads the state annotations of rules written for policy, by
// component; those refused (unreadable, or on a rule that is not the one
// ARTT writes for the component named) by rule.
func savedStates(rules []*networkingv1.DestinationRule, comps map[string]component, policy string) (map[string][]byte, map[string]error) {
	states := map[string][]byte{}
	refused := map[string]error{}
	for _, rule := range rules {
		v, ok := rule.Annotations[StateAnnotation]
		if !ok {
			continue
		}
		var s savedState
		key := rule.Namespace + "/" + rule.Name
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			refused[key] = fmt.Errorf("%s: %w", StateAnnotation, err)
			continue
		}
		if err := ruleIsComponents(rule, rules, comps, s.Component); err != nil {
			refused[key] = fmt.Errorf("%s: %w", StateAnnotation, err)
			continue
		}
		if s.Policy == policy {
			states[s.Component] = s.State
		}
	}
	return states, refused
}

// ruleIsComponents checks that rule is the one ARTT writes for the named
// component (chooseTarget): ARTT's own for its workload, labelled as
// ARTT's, or the user's rule for its host in its namespace.
func ruleIsComponents(rule *networkingv1.DestinationRule, rules []*networkingv1.DestinationRule, comps map[string]component, name string) error {
	if name == "" {
		return fmt.Errorf("no component")
	}
	comp, ok := comps[name]
	if !ok {
		return fmt.Errorf("component %q is no managed Deployment", name)
	}
	t := chooseTarget(rules, comp)
	if rule.Namespace != t.namespace || rule.Name != t.name || (t.own && rule.Labels[ManagedByLabel] != FieldManager) {
		return fmt.Errorf("component %q is routed by rule %s, not by this one (host %q)", name, t.key(), rule.Spec.GetHost())
	}
	return nil
}

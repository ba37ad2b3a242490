package controller

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/allocate"
)

// Scheme holds the types artt-traffic reads and writes: Kubernetes' own
// and Istio's networking/v1.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := networkingv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Options configure the controller.
type Options struct {
	// Interval between measurement cycles (default 30s).
	Interval time.Duration
	// ProtectInterval is how often the fast path measures between cycles
	// and re-routes when a group's health changed (policies with a fast
	// path, ARTT; default 15s, a common scrape interval; negative turns it
	// off). Measuring faster than Prometheus scrapes finds nothing new.
	ProtectInterval time.Duration
	// Policy names the traffic policy (default "artt").
	Policy string
	// Allocate tunes the policies.
	Allocate allocate.Options
	// DryRun computes, logs and exports allocations but writes nothing.
	DryRun bool
	// LabelNodes sets topology.istio.io/subzone=<node name> on nodes that
	// have a region and zone but no subzone.
	LabelNodes bool
	// Collector queries Prometheus.
	Collector Collector
	// Topology is the ConfigMap, namespace/name, where each cycle publishes
	// the measured delays and call graph for artt-scheduler; empty
	// publishes none.
	Topology string
	// DataPlane carries the rules to the callers (default DataPlaneEnvoy).
	DataPlane DataPlane
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Controller is the allocation loop. It runs only on the elected leader.
type Controller struct {
	client  client.Client
	cache   cache.Cache
	opts    Options
	policy  traffic.Policy
	writer  writer
	tel     *telemetry
	log     *slog.Logger
	changes chan time.Time
	last    *Measurements
	// protector is the policy's fast path, when it has one and it is on.
	protector traffic.Protector
	// beforeWrite, when set (by tests), runs between computing a rule that
	// differs from the one last written and writing it: where a leader can
	// stall or lose its lease.
	beforeWrite func(component string)
	// publishedTopology is the content last published.
	publishedTopology string
	// missingSignals is, per optional signal, the pods the last
	// collection measured without it.
	missingSignals map[string]int
}

// New builds a controller. reg receives its metrics.
func New(c client.Client, ca cache.Cache, ic istioclient.Interface, opts Options, reg prometheus.Registerer, log *slog.Logger) (*Controller, error) {
	if opts.Interval <= 0 {
		opts.Interval = 30 * time.Second
	}
	if opts.ProtectInterval == 0 {
		opts.ProtectInterval = 15 * time.Second
	}
	if opts.Policy == "" {
		opts.Policy = "artt"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := checkTopologyRef(opts.Topology); err != nil {
		return nil, err
	}
	dataPlane, err := ParseDataPlane(string(opts.DataPlane))
	if err != nil {
		return nil, fmt.Errorf("data plane %w", err)
	}
	opts.DataPlane = dataPlane
	policy, err := allocate.New(opts.Policy, opts.Allocate)
	if err != nil {
		return nil, err
	}
	return &Controller{
		client: c, cache: ca, opts: opts, policy: policy,
		writer:         writer{istio: ic, applied: make(map[string]string)},
		tel:            newTelemetry(reg),
		log:            log,
		changes:        make(chan time.Time, 1),
		missingSignals: make(map[string]int),
	}, nil
}

// NeedLeaderElection makes the manager run the loop on the leader only.
func (c *Controller) NeedLeaderElection() bool { return true }

// Start runs the loop until ctx ends: a cycle at once, then every interval,
// and a reallocation as soon as the API reports a relevant change.
func (c *Controller) Start(ctx context.Context) error {
	if err := c.watch(ctx); err != nil {
		return err
	}
	if !c.cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("informer caches did not sync")
	}
	protector, fastPath := c.policy.(traffic.Protector)
	fastPath = fastPath && c.opts.ProtectInterval > 0
	c.log.Info("leading: allocating traffic", "policy", c.opts.Policy, "interval", c.opts.Interval,
		"protectInterval", c.opts.ProtectInterval, "fastPath", fastPath, "dryRun", c.opts.DryRun)
	c.resume(ctx, c.opts.Now())
	c.reconcile(ctx, cycle, time.Time{})
	tick := time.NewTicker(c.opts.Interval)
	defer tick.Stop()
	var protect <-chan time.Time
	if fastPath {
		pt := time.NewTicker(c.opts.ProtectInterval)
		defer pt.Stop()
		protect = pt.C
		c.protector = protector
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			c.reconcile(ctx, cycle, time.Time{})
		case <-protect:
			c.reconcile(ctx, protection, time.Time{})
		case seen := <-c.changes:
			c.reconcile(ctx, event, seen)
		}
	}
}

// writeConcurrency bounds the DestinationRule writes in flight at once.
// Each is one server-side apply, answered in tens of milliseconds; a fleet's
// first cycle writes a rule per component, and one at a time that is
// seconds. The apiserver's priority and fairness governs beyond this.
const writeConcurrency = 8

// trigger is why a reconciliation runs.
type trigger string

const (
	// cycle measures and reallocates.
	cycle trigger = "cycle"
	// event reallocates with the last measurements after an API change.
	event trigger = "event"
	// protection measures and re-routes only if a group's health changed.
	protection trigger = "protect"
)

// notify records a change; changes arriving during a reallocation
// coalesce into one more.
func (c *Controller) notify() {
	select {
	case c.changes <- c.opts.Now():
	default:
	}
}

// watch registers the event handlers that trigger immediate reallocation.
func (c *Controller) watch(ctx context.Context) error {
	pods, err := c.cache.GetInformer(ctx, &corev1.Pod{})
	if err != nil {
		return err
	}
	if _, err := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*corev1.Pod)
			n, ok2 := newObj.(*corev1.Pod)
			if ok1 && ok2 && (podReady(*o) != podReady(*n) || (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil)) {
				c.notify()
			}
		},
		DeleteFunc: func(any) { c.notify() },
	}); err != nil {
		return err
	}
	nodes, err := c.cache.GetInformer(ctx, &corev1.Node{})
	if err != nil {
		return err
	}
	if _, err := nodes.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*corev1.Node)
			n, ok2 := newObj.(*corev1.Node)
			if ok1 && ok2 && (nodeReady(*o) != nodeReady(*n) || locality(*o) != locality(*n)) {
				c.notify()
			}
		},
		DeleteFunc: func(any) { c.notify() },
	}); err != nil {
		return err
	}
	deployments, err := c.cache.GetInformer(ctx, &appsv1.Deployment{})
	if err != nil {
		return err
	}
	managed := func(obj any) bool {
		d, ok := obj.(*appsv1.Deployment)
		return ok && d.Labels[ManagedLabel] == "true"
	}
	_, err = deployments.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.notifyIf(managed(obj)) },
		UpdateFunc: func(o, n any) { c.notifyIf(managed(o) != managed(n)) },
		DeleteFunc: func(obj any) { c.notifyIf(managed(obj)) },
	})
	return err
}

func (c *Controller) notifyIf(b bool) {
	if b {
		c.notify()
	}
}

// read lists what the allocation needs from the cache.
func (c *Controller) read(ctx context.Context) (apiState, error) {
	st := apiState{dataPlane: c.opts.DataPlane}
	var deps appsv1.DeploymentList
	if err := c.client.List(ctx, &deps, client.MatchingLabels{ManagedLabel: "true"}); err != nil {
		return st, fmt.Errorf("list deployments: %w", err)
	}
	st.deployments = deps.Items
	// The lists are read, never modified: the cache's objects are used as
	// they are instead of deep-copying ten thousand pods and every rule
	// every cycle.
	var nodes corev1.NodeList
	if err := c.client.List(ctx, &nodes, client.UnsafeDisableDeepCopy); err != nil {
		return st, fmt.Errorf("list nodes: %w", err)
	}
	st.nodes = nodes.Items
	namespaces := map[string]bool{}
	for _, d := range deps.Items {
		namespaces[d.Namespace] = true
	}
	for ns := range namespaces {
		var pods corev1.PodList
		if err := c.client.List(ctx, &pods, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
			return st, fmt.Errorf("list pods in %s: %w", ns, err)
		}
		st.pods = append(st.pods, pods.Items...)
		var drs networkingv1.DestinationRuleList
		if err := c.client.List(ctx, &drs, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
			return st, fmt.Errorf("list destinationrules in %s: %w", ns, err)
		}
		st.rules = append(st.rules, drs.Items...)
	}
	return st, nil
}

// reconcile reallocates: with fresh measurements on a cycle, with the last
// ones after an API change (seen is when the change was noticed); on the
// fast path it measures and writes only when the policy says a group's
// health changed.
func (c *Controller) reconcile(ctx context.Context, why trigger, seen time.Time) {
	start := c.opts.Now()
	st, ok := c.measure(ctx, why, start)
	if !ok {
		return
	}
	if c.opts.LabelNodes {
		c.labelNodes(ctx, st.nodes)
	}
	snap, comps := snapshot(st, c.last, start)
	if why == cycle {
		c.publishTopology(ctx, snap)
	}
	alloc, ok := c.allocate(snap, why, start)
	if !ok {
		return
	}
	results := c.writeRoutes(ctx, alloc, snap, comps, st.rules)
	took := c.opts.Now().Sub(start)
	c.tel.cycle.WithLabelValues(string(why)).Observe(took.Seconds())
	if !seen.IsZero() {
		c.tel.reaction.Observe(c.opts.Now().Sub(seen).Seconds())
	}
	c.log.Debug("reallocated", "trigger", why, "routes", len(alloc.Routes), "written", results[written],
		"unchanged", results[unchanged], "conflicts", results[conflict], "failed", results[failed], "took", took)
}

// measure reads the cluster from the cache while Prometheus answers (an
// event reuses the last measurements). ok is false, and the last routing
// kept, when either fails.
func (c *Controller) measure(ctx context.Context, why trigger, start time.Time) (apiState, bool) {
	var st apiState
	var err error
	read := make(chan struct{})
	go func() {
		defer close(read)
		readStart := c.opts.Now()
		st, err = c.read(ctx)
		c.tel.phase.WithLabelValues("read").Observe(c.opts.Now().Sub(readStart).Seconds())
	}()
	if why != event {
		m, collectErr := c.opts.Collector.Collect(ctx, start)
		if collectErr != nil {
			<-read
			c.tel.collectErrs.Inc()
			c.tel.promUp.Set(0)
			c.log.Error("measurements unavailable: keeping the last routing", "error", collectErr)
			return st, false
		}
		c.last = m
		c.reportMissingSignals(m)
		c.tel.promUp.Set(1)
		c.tel.lastCollect.Set(float64(start.Unix()))
		c.tel.phase.WithLabelValues("collect").Observe(c.opts.Now().Sub(start).Seconds())
	}
	<-read
	if err != nil {
		c.log.Error("reading the cluster failed: keeping the last routing", "error", err)
		return st, false
	}
	return st, true
}

// allocate runs the policy on the snapshot: its fast path for a
// protection, which may find nothing to change (ok false, nothing to
// write), its cycle otherwise.
func (c *Controller) allocate(snap traffic.Snapshot, why trigger, start time.Time) (traffic.Allocation, bool) {
	allocStart := c.opts.Now()
	var alloc traffic.Allocation
	var err error
	if why == protection {
		var changed bool
		alloc, changed, err = c.protector.Protect(snap)
		if err == nil && !changed {
			c.tel.phase.WithLabelValues("allocate").Observe(c.opts.Now().Sub(allocStart).Seconds())
			c.tel.cycle.WithLabelValues(string(why)).Observe(c.opts.Now().Sub(start).Seconds())
			return alloc, false
		}
		if err == nil {
			c.tel.protections.Inc()
		}
	} else {
		alloc, err = c.policy.Allocate(snap)
	}
	c.tel.phase.WithLabelValues("allocate").Observe(c.opts.Now().Sub(allocStart).Seconds())
	if f, ok := c.policy.(traffic.Forgetter); ok {
		n := f.Tracked()
		c.tel.tracked.WithLabelValues("components").Set(float64(n.Components))
		c.tel.tracked.WithLabelValues("groups").Set(float64(n.Groups))
		c.tel.tracked.WithLabelValues("replicas").Set(float64(n.Replicas))
	}
	if err != nil {
		c.tel.allocErrs.Inc()
		c.log.Error("allocation failed: keeping the last routing", "error", err)
		return alloc, false
	}
	for _, f := range alloc.Failed {
		c.tel.componentErrs.WithLabelValues(f.Component).Inc()
		c.log.Error("a component's allocation failed: keeping its last routing, the others routed", "component", f.Component, "error", f.Err)
	}
	return alloc, true
}

// groupSummary is "node=share" for the log.
func groupSummary(r traffic.Route) []string {
	out := make([]string, 0, len(r.Groups))
	for _, g := range r.Groups {
		s := fmt.Sprintf("%s=%.3f", g.Node, g.Share)
		if g.Health != "" && g.Health != "Healthy" {
			s += "(" + g.HealthSummary() + ")"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// labelNodes gives nodes with a region and zone their own subzone, so each
// node is an Istio locality.
func (c *Controller) labelNodes(ctx context.Context, nodes []corev1.Node) {
	for _, n := range nodes {
		if n.Labels[RegionLabel] == "" || n.Labels[ZoneLabel] == "" || n.Labels[SubzoneLabel] != "" {
			continue
		}
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, SubzoneLabel, n.Name)
		obj := &corev1.Node{}
		obj.Name = n.Name
		if err := c.client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			c.log.Error("cannot label node", "node", n.Name, "error", err)
			continue
		}
		c.log.Info("labelled node with its own Istio subzone", "node", n.Name)
	}
}

package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	networkingapi "istio.io/api/networking/v1alpha3"
	appsv1 "k8s.io/api/apps/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/live/loadgen"
	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// Active is a run under way, for what happens during it (During).
type Active struct {
	H         *Harness
	Namespace string
	Run       scenario.Run
	// Started is when the load generator began sending.
	Started time.Time
	index   int
	counts  atomic.Pointer[loadgen.Counts]
	traffic *trafficSet // nil unless artt-traffic routes the run
	tables  *tableLog   // nil unless artt-traffic routes the run
	scaled  *scaledPods // nil unless KEDA scales the run
	static  []string    // the flag giving the endpoints, for weighted round robin
	faults  nodeFaults  // the scenario's events in force
}

// ownPods are the pods the harness places itself: the plan's, but those of
// the components KEDA scales in this run, whose ReplicaSets make theirs.
func (a *Active) ownPods() []PodSpec {
	scaled := a.H.scaledIn(a.Run)
	var out []PodSpec
	for _, p := range a.H.Plan.Pods {
		if !slices.ContainsFunc(scaled, func(s ScaledSpec) bool { return s.Component == p.Component }) {
			out = append(out, p)
		}
	}
	return out
}

// pods are every pod of the run so far: the harness's own, then those
// the ReplicaSets made, with their lives.
func (a *Active) pods() ([]RunPod, error) {
	var out []RunPod
	for _, p := range a.ownPods() {
		out = append(out, RunPod{PodSpec: p})
	}
	if a.scaled == nil {
		return out, nil
	}
	made, err := a.scaled.snapshot()
	return append(out, made...), err
}

// During, when set, runs beside a run's load from the moment it starts
// sending; the run waits for it before it ends. A fault or a check
// mid-run goes here.
type During func(ctx context.Context, a *Active) error

// Measured is a run's raw measurements.
type Measured struct {
	Run scenario.Run
	// Namespace is the run's; its logs are named after it.
	Namespace string
	Records   []loadgen.Record
	// CPU is each pod's CPU seconds over the measured window, Served the
	// requests it answered in it, Work the CPU seconds it spent on their
	// own work, Server those its server spent beside the work; the last
	// three only for pods running at the window's end.
	CPU, Served, Work, Server map[string]float64
	// Window is the measured window's length.
	Window time.Duration
	// Pods are every pod of the run, with their lives; Started is when
	// the load began, which their times count from.
	Pods    []RunPod
	Started time.Time
	// Tables are the routing tables artt-traffic put in force, with their
	// times since Started (nil when it did not route the run).
	Tables []outcome.TableChange
	// Pipeline is the record of the autoscaling pipeline (nil when KEDA
	// did not scale the run).
	Pipeline *Pipeline
	// firstArrival is, by pod running at the end, when its first request
	// arrived.
	firstArrival map[string]time.Time
}

// Run carries the plan's run i with its real balancer and returns what it
// measured.
func (h *Harness) Run(ctx context.Context, i int, during During) (_ *Measured, err error) {
	run := h.Plan.Runs[i]
	ns := fmt.Sprintf("live-%d", h.runs)
	h.runs++
	h.opts.Progress.Run(i+1, len(h.Plan.Runs), run.Label())
	h.opts.Progress.Phase("starting pods")
	defer h.cleanUp(ns)
	lb, managed := balancer(run)
	scaled := h.scaledIn(run)
	if err := createWorkloads(ctx, h.Cluster, h.Plan, ns, lb, managed, scaled); err != nil {
		return nil, err
	}
	a := &Active{H: h, Namespace: ns, Run: run, index: i, faults: newNodeFaults()}
	defer func() {
		if undo := a.undoFaults(context.WithoutCancel(ctx)); undo != nil {
			err = errors.Join(err, fmt.Errorf("undoing %s's events: %w", run.Label(), undo))
		}
	}()
	if run.Routing == "cswrr" {
		path, err := h.writeEndpoints(i, ns)
		if err != nil {
			return nil, err
		}
		a.static = []string{"--static-endpoints=" + path}
	}
	for _, pod := range a.ownPods() {
		args := append([]string{"--component=" + pod.Component, fmt.Sprintf("--seed=%d", h.Plan.Scenario.Seed)}, a.static...)
		if _, err := h.kubelet.startPod(ctx, podStart{ns: ns, name: pod.Name, workload: backend.ObjectName(pod.Component), node: pod.Node,
			ip: podIP(i, pod.Index), limit: pod.Limit, request: pod.Request, role: "backend", args: args}); err != nil {
			return nil, err
		}
	}
	if len(scaled) > 0 {
		follow, stop := context.WithCancel(ctx)
		defer stop() // before cleanUp: no pod is started while the run's are stopped
		a.scaled = newScaledPods(h, ns, i, scaled)
		go a.scaled.follow(follow)
	}
	if err := h.waitEndpoints(ctx, ns, len(h.Plan.Pods)); err != nil {
		if a.scaled != nil {
			_, scaledErr := a.scaled.snapshot()
			err = errors.Join(err, scaledErr)
		}
		return nil, err
	}
	if managed {
		var err error
		if a.tables, err = recordTables(ctx, h.Cluster, ns, h.Plan.Scenario.Application.Components); err != nil {
			return nil, err
		}
		defer a.tables.stop()
		if a.traffic, err = startTraffic(ctx, h.Cluster, run.Routing, h.opts.Dir, ns, h.Plan.Scenario.Control.TrafficCycle.Duration, h.Plan.Scenario.Control.SampleInterval.Duration); err != nil {
			return nil, err
		}
		defer a.traffic.Stop()
	}
	if err := h.startScaling(ctx, a, scaled); err != nil {
		return nil, err
	}
	if len(scaled) == 0 {
		return h.measure(ctx, a, during)
	}
	return h.measureScaled(ctx, a, during, scaled)
}

// measureScaled measures a run KEDA scales, and records its autoscaling
// pipeline beside it (Measured.Pipeline).
func (h *Harness) measureScaled(ctx context.Context, a *Active, during During, scaled []ScaledSpec) (*Measured, error) {
	var hpas []string
	for _, s := range scaled {
		hpas = append(hpas, kedaHPAName(backend.ObjectName(s.Component)))
	}
	watch := startStageWatch(ctx, h.Cluster, a.Namespace, hpas)
	m, err := h.measure(ctx, a, during)
	if err != nil {
		_ = watch.stop() // the measurement's error is the one to report
		return nil, err
	}
	m.Pipeline, err = h.pipeline(ctx, a, watch, m.firstArrival)
	return m, err
}

// scaledIn is the plan's autoscaled components when KEDA scales run r.
func (h *Harness) scaledIn(r scenario.Run) []ScaledSpec {
	if !Autoscaled(r) {
		return nil
	}
	return h.Plan.Scaled
}

// startScaling creates each scaled component's ScaledObject and waits
// until its HPA has read artt-scaler's metric once.
func (h *Harness) startScaling(ctx context.Context, a *Active, scaled []ScaledSpec) error {
	if len(scaled) == 0 {
		return nil
	}
	h.opts.Progress.Phase("starting KEDA's scaling")
	for _, s := range scaled {
		for _, c := range h.Plan.Scenario.Application.Components {
			if c.Name == s.Component {
				if err := createScaledObject(ctx, h.Cluster, h.Plan.Scenario, a.Run, a.Namespace, c); err != nil {
					return err
				}
			}
		}
	}
	for _, s := range scaled {
		if err := waitHPA(ctx, h.Cluster, a.Namespace, backend.ObjectName(s.Component)); err != nil {
			return err
		}
	}
	return nil
}

// balancer is the user's DestinationRule policy inside a locality for a
// run (unspecified: no user's rule), and whether artt-traffic manages the
// components. A table policy's run under LEAST_REQUEST has no user's rule:
// artt-traffic writes its own, with ROUND_ROBIN under a table and
// LEAST_REQUEST without (controller.DataPlaneGRPC); cswrr's clients read
// their own service config.
func balancer(r scenario.Run) (networkingapi.LoadBalancerSettings_SimpleLB, bool) {
	switch r.Routing {
	case "least-request":
		return networkingapi.LoadBalancerSettings_LEAST_REQUEST, false
	case "round-robin":
		return networkingapi.LoadBalancerSettings_ROUND_ROBIN, false
	case "heart", "artt":
		if r.LBPolicy == "ROUND_ROBIN" {
			return networkingapi.LoadBalancerSettings_ROUND_ROBIN, true
		}
		return networkingapi.LoadBalancerSettings_UNSPECIFIED, true
	}
	return networkingapi.LoadBalancerSettings_UNSPECIFIED, false
}

// writeEndpoints writes each component's endpoints in run i, for the
// weighted-round-robin clients.
func (h *Harness) writeEndpoints(i int, ns string) (string, error) {
	eps := map[string][]string{}
	for _, pod := range h.Plan.Pods {
		eps[pod.Component] = append(eps[pod.Component], fmt.Sprintf("%s:%d", podIP(i, pod.Index), backend.Port))
	}
	b, err := json.Marshal(eps)
	if err != nil {
		return "", err
	}
	path := filepath.Join(h.opts.Dir, ns+"-endpoints.json")
	return path, os.WriteFile(path, b, 0o644)
}

// waitEndpoints waits until kube-controller-manager's EndpointSlices list
// want pods of the run as ready.
func (h *Harness) waitEndpoints(ctx context.Context, ns string, want int) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		var slices discoveryv1.EndpointSliceList
		if err := h.Cluster.Client.List(ctx, &slices, client.InNamespace(ns)); err != nil {
			return err
		}
		ready := 0
		for _, s := range slices.Items {
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					ready++
				}
			}
		}
		if ready >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d of %d endpoints ready after 60s (kube-controller-manager.log)", ns, ready, want)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// cleanUp deletes a run's ScaledObjects, stops its processes and deletes
// its Deployments, so the next run's artt-traffic and KEDA do not see them.
func (h *Harness) cleanUp(ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if h.Cluster.ScalerAddress != "" {
		so := &unstructured.Unstructured{}
		so.SetAPIVersion("keda.sh/v1alpha1")
		so.SetKind("ScaledObject")
		_ = h.Cluster.Client.DeleteAllOf(ctx, so, client.InNamespace(ns))
	}
	_ = h.kubelet.stopAll(ctx, ns)
	_ = h.Cluster.Client.DeleteAllOf(ctx, &appsv1.Deployment{}, client.InNamespace(ns))
}

// measure starts the load generator, reads each pod's CPU at the end of
// the warm-up and of the run, and collects the requests.
func (h *Harness) measure(ctx context.Context, a *Active, during During) (*Measured, error) {
	sc := h.Plan.Scenario
	records := filepath.Join(h.opts.Dir, a.Namespace+"-requests.csv")
	finished, err := h.startLoad(ctx, a, records)
	if err != nil {
		return nil, err
	}
	tick, stopTick := context.WithCancel(ctx)
	defer stopTick()
	go h.opts.Progress.Tick(tick)
	duringErr := make(chan error, 2)
	if during != nil {
		go func() { duringErr <- during(ctx, a) }()
	} else {
		duringErr <- nil
	}
	events, stopEvents := context.WithDeadline(ctx, a.Started.Add(sc.Duration.Duration))
	defer stopEvents()
	go func() { duringErr <- a.playEvents(events) }()
	m := &Measured{Run: a.Run, Namespace: a.Namespace, Window: sc.Duration.Duration - sc.Warmup.Duration}
	h.opts.Progress.Timed("warm-up", a.Started.Add(sc.Warmup.Duration))
	start, err := h.countersAt(ctx, a, a.Started.Add(sc.Warmup.Duration))
	if err != nil {
		return nil, err
	}
	h.opts.Progress.Timed("measuring", a.Started.Add(sc.Duration.Duration))
	end, err := h.countersAt(ctx, a, a.Started.Add(sc.Duration.Duration))
	if err != nil {
		return nil, err
	}
	m.CPU, m.Served, m.Work, m.Server = map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}
	m.firstArrival = end.firstArrival
	for pod, v := range end.cpu {
		m.CPU[pod] = v - start.cpu[pod]
		// A pod stopped in the window has no counters at its end: what it
		// answered before it stopped is unknown, so it has none.
		if _, ok := end.served[pod]; ok {
			m.Served[pod] = end.served[pod] - start.served[pod]
			m.Work[pod] = end.work[pod] - start.work[pod]
			m.Server[pod] = end.server[pod] - start.server[pod]
		}
	}
	h.opts.Progress.Phase("waiting for the last answers")
	select {
	case <-finished:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := errors.Join(<-duringErr, <-duringErr); err != nil {
		return nil, fmt.Errorf("during %s: %w", a.Run.Label(), err)
	}
	if m.Records, err = readRecords(records); err != nil {
		return nil, err
	}
	m.Started = a.Started
	if a.tables != nil {
		if m.Tables, err = a.tables.finish(a.Started, filepath.Join(h.opts.Dir, a.Namespace+"-tables.jsonl")); err != nil {
			return nil, fmt.Errorf("%s's routing tables: %w", a.Run.Label(), err)
		}
	}
	if m.Pods, err = a.pods(); err != nil {
		return nil, fmt.Errorf("%s's scaled pods: %w", a.Run.Label(), err)
	}
	return m, nil
}

// startLoad starts the load generator as the gateway's pod and waits until
// it sends; the channel closes when it has written its records and ended.
func (h *Harness) startLoad(ctx context.Context, a *Active, records string) (<-chan struct{}, error) {
	sc := h.Plan.Scenario
	out, err := h.kubelet.startPod(ctx, podStart{ns: a.Namespace, name: ingressWorkload + "-0", workload: ingressWorkload, node: h.Plan.IngressNode,
		ip: podIP(a.index, ingressIndex), limit: 1, role: "loadgen", // no CPU request: the lab's gateway takes no room on its node
		args: append([]string{"--entry=" + sc.Application.Entry, "--duration=" + sc.Duration.String(), "--records=" + records, fmt.Sprintf("--seed=%d", sc.Seed)}, a.static...)})
	if err != nil {
		return nil, err
	}
	started, finished := make(chan struct{}), make(chan struct{})
	go func() {
		once := false
		progressLines(out, func(s genStatus) {
			if s.Started && !once {
				once = true
				close(started)
			}
			h.opts.Progress.Counts(s.Counts)
			a.counts.Store(&s.Counts)
		})
		close(finished)
	}()
	select {
	case <-started:
		a.Started = time.Now()
		if a.scaled != nil {
			a.scaled.loadStarted(a.Started)
		}
		return finished, nil
	case <-finished:
		return nil, fmt.Errorf("the load generator stopped before it sent (log %s)", filepath.Join(h.opts.Dir, a.Namespace+"-"+ingressWorkload+"-0.log"))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// counters are each pod's cumulative counters at one moment: its cgroup's
// CPU seconds, the requests it answered, the CPU seconds spent on their
// work, and those of its server beside the work.
type counters struct {
	cpu, served, work, server map[string]float64
	firstArrival              map[string]time.Time
}

// countersAt waits until at and reads every backend's counters then. A
// pod stopped by then (deleted mid-run) reads as its last CPU value and as
// having answered and worked nothing more.
func (h *Harness) countersAt(ctx context.Context, a *Active, at time.Time) (counters, error) {
	select {
	case <-ctx.Done():
		return counters{}, ctx.Err()
	case <-time.After(time.Until(at)):
	}
	c := counters{cpu: map[string]float64{}, served: map[string]float64{}, work: map[string]float64{}, server: map[string]float64{}, firstArrival: map[string]time.Time{}}
	pods, err := a.pods()
	if err != nil {
		return counters{}, err
	}
	for _, pod := range pods {
		// Only a ReplicaSet's pod still starting may have no counter yet.
		if c.cpu[pod.Name], err = h.kubelet.cpuSeconds(a.Namespace, pod.Name); err != nil && !pod.starting() {
			return counters{}, err
		}
	}
	for _, comp := range h.Plan.Scenario.Application.Components {
		got, err := a.podCounters(ctx, comp.Name)
		if err != nil {
			return counters{}, err
		}
		for pod, pc := range got {
			c.served[pod], c.work[pod], c.server[pod] = pc.receivedTotal(), pc.work, pc.server
			if !pc.firstArrival.IsZero() {
				c.firstArrival[pod] = pc.firstArrival
			}
		}
	}
	return c, nil
}

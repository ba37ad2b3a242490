package live

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// Routings are the runs a live loop can carry, each by a real balancer:
// least-request (gRPC's least_request, as istiod sends Istio's
// LEAST_REQUEST), round-robin (ROUND_ROBIN), cswrr (gRPC's
// weighted_round_robin with ORCA, from a client service config), heart
// and artt (artt-traffic's locality weights through istiod, round robin
// inside a locality: the user's ROUND_ROBIN, or under LEAST_REQUEST the
// one artt-traffic writes with a table, least-request without it).
var Routings = []string{"least-request", "round-robin", "cswrr", "heart", "artt"}

// DefaultMaxCores bounds the cores a scenario's nodes may have in all: the
// backends share this machine's two with the control plane and the load.
const DefaultMaxCores = 1.0

// Plan is a scenario checked for the live loop, with its pods laid out.
type Plan struct {
	// Source is what the processes load: a built-in name or an absolute
	// path.
	Source   string
	Loaded   loadtest.Loaded
	Scenario *scenario.Scenario
	Runs     []scenario.Run
	// Pods are each run's pods, the same layout in every run.
	Pods []PodSpec
	// Scaled are the autoscaled components, for the runs KEDA scales.
	Scaled []ScaledSpec
	// IngressNode is where the load generator poses as the gateway.
	IngressNode string
}

// ScaledSpec is an autoscaled component: in a run KEDA scales, its
// Deployment's ReplicaSet makes its pods, and each takes one of Slots, the
// pod indices (addresses) kept for it, up to its maxReplicas.
type ScaledSpec struct {
	Component string
	Slots     []int
}

// Autoscaled reports whether KEDA scales run r.
func Autoscaled(r scenario.Run) bool { return r.Autoscaling == "artt" }

// PodSpec is one pod of the scenario's placement.
type PodSpec struct {
	Name, Component, Node string
	// Index is the pod's place among all pods, for its address.
	Index int
	// Limit and Request are its CPU limit and request, in cores.
	Limit, Request float64
}

// NewPlan loads a scenario (a built-in name or a file), checks it against
// the subset the live loop runs and lays out its pods. maxCores bounds the
// nodes' cores in all. Every field outside the subset is refused by name,
// with the reason.
func NewPlan(nameOrPath string, maxCores float64) (*Plan, error) {
	l, err := loadtest.Load(nameOrPath)
	if err != nil {
		return nil, err
	}
	if err := loadtest.Check(l, ""); err != nil {
		return nil, err
	}
	if _, err := os.Stat(nameOrPath); err == nil {
		if nameOrPath, err = filepath.Abs(nameOrPath); err != nil {
			return nil, err
		}
	}
	sc := l.Scenario
	if err := refuseUnsupported(sc); err != nil {
		return nil, err
	}
	cores := 0.0
	for _, n := range sc.Cluster.Nodes {
		cores += n.Cores
	}
	if cores > maxCores+1e-9 {
		return nil, &scenario.FieldError{Field: "cluster.nodes", Value: cores, Reason: fmt.Sprintf(
			"the nodes have %g cores in all; the live loop runs them inside this machine's, beside its control plane, and takes at most %g (scale the scenario down, or raise --max-cores)", cores, maxCores)}
	}
	p := &Plan{Source: nameOrPath, Loaded: l, Scenario: sc, Runs: sc.Runs, IngressNode: sc.Cluster.IngressNode}
	for _, c := range sc.Application.Components {
		name := backend.ObjectName(c.Name)
		if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
			return nil, &scenario.FieldError{Field: "application.components.name", Value: c.Name, Reason: "as a Kubernetes name: " + errs[0]}
		}
		for i := range c.Replicas {
			node := c.Placement[i%len(c.Placement)]
			p.Pods = append(p.Pods, PodSpec{Name: fmt.Sprintf("%s-%d", name, i), Component: c.Name, Node: node, Index: len(p.Pods), Limit: c.CPULimit, Request: c.CPURequest})
		}
	}
	for _, c := range sc.Application.Components {
		if !c.Autoscale {
			continue
		}
		sp := ScaledSpec{Component: c.Name}
		for range c.MaxReplicas {
			sp.Slots = append(sp.Slots, len(p.Pods)+slotCount(p.Scaled)+len(sp.Slots))
		}
		p.Scaled = append(p.Scaled, sp)
	}
	if n := len(p.Pods) + slotCount(p.Scaled); n > 200 {
		return nil, &scenario.FieldError{Field: "application.components.replicas", Value: n, Reason: "more than 200 pods (maxReplicas counted for an autoscaled component): one process each does not fit here"}
	}
	return p, nil
}

// refuseUnsupported names the first field the live loop cannot run.
func refuseUnsupported(sc *scenario.Scenario) error {
	refuse := func(field string, value any, reason string) error {
		return &scenario.FieldError{Field: field, Value: value, Reason: "not supported by the live loop: " + reason}
	}
	for i, ev := range sc.Events {
		switch {
		case !slices.Contains(LiveEvents, ev.Type):
			return refuse(fmt.Sprintf("events[%d].type", i), ev.Type, fmt.Sprintf("the live loop plays %v; a pod's or a node's failure is a fault a test injects (see docs/live.md)", LiveEvents))
		case ev.Type == "node-contention" && ev.Cores != math.Trunc(ev.Cores):
			return refuse(fmt.Sprintf("events[%d].cores", i), ev.Cores, "a live neighbour keeps whole threads busy; give a whole number")
		}
	}
	switch {
	case sc.Frontier != nil:
		return refuse("frontier", "set", "autoscaling sweeps run in the lab")
	case sc.Workload.History != nil:
		return refuse("workload.history", "set", "the live Prometheus holds only what the run scraped; give a calendar whole periods of the run to learn from (as live-sessions does)")
	case sc.Cluster.Ingress.Replicas != 1:
		return refuse("cluster.ingress.replicas", sc.Cluster.Ingress.Replicas, "the load generator is one gateway; set replicas: 1 so the lab models the same")
	case sc.Cluster.DataPlane != scenario.DataPlaneGRPC:
		// The scenario then refuses what gRPC cannot carry (lbPolicy,
		// outlier detection), and the lab models gRPC's balancers.
		return refuse("cluster.dataPlane", sc.Cluster.DataPlane, "the live data plane is gRPC's xDS clients; set dataPlane: grpc so the lab models the same")
	}
	for _, c := range sc.Application.Components {
		switch {
		case c.Autoscale && c.MaxReplicas > 64:
			return refuse("application.components.maxReplicas", c.MaxReplicas, "an autoscaled component keeps an address per possible pod, at most 64")
		case c.Workers > 0:
			return refuse("application.components.workers", c.Workers, "a gRPC server serves its requests at once (processor sharing, workers: 0)")
		case len(c.Placement) == 0:
			return refuse("application.components.placement", c.Name, "the live loop places pods as the scenario says; list the nodes")
		}
	}
	for _, r := range sc.Runs {
		switch {
		case !slices.Contains(Routings, r.Routing):
			return refuse("runs.routing", r.Routing, fmt.Sprintf("the live balancers are %v", Routings))
		case r.Autoscaling != "" && r.Autoscaling != "none" && !Autoscaled(r):
			return refuse("runs.autoscaling", r.Autoscaling, "KEDA scales the live pods on artt-scaler's answers only (artt); the CPU autoscalers need metrics-server, which is not built here")
		case r.Placement != "" && r.Placement != "default":
			return refuse("runs.placement", r.Placement, "pods are placed as the components' placement says")
		case len(r.ScalerMetadata) > 0 && !Autoscaled(r):
			return refuse("runs.scalerMetadata", r.Label(), "no autoscaler runs")
		case sc.Workload.Type == "trace" && sc.TriggerMetadata(r, "", "")["normalization"] == "calendar":
			return refuse("runs.scalerMetadata.normalization", "calendar", "a trace's earlier rows are the lab's history, and the live Prometheus holds only what the run scraped")
		}
	}
	return nil
}

// slotCount is how many slots the autoscaled components keep.
func slotCount(scaled []ScaledSpec) int {
	n := 0
	for _, s := range scaled {
		n += len(s.Slots)
	}
	return n
}

// nodeIndex is the place of a node in the scenario's list.
func (p *Plan) nodeIndex(name string) int {
	return slices.IndexFunc(p.Scenario.Cluster.Nodes, func(n scenario.Node) bool { return n.Name == name })
}

// podIP is a pod's address in run i: one /24 per run, so a run's clients
// never reach the pods of the one before. The load generator is .250.
func podIP(run, index int) string { return fmt.Sprintf("10.80.%d.%d", run+1, index+1) }

const ingressIndex = 249

// cfs is a CPU amount as a cgroup's CFS period and quota, in
// microseconds: the shortest period the kernel allows for it (quota and
// period at least 1 ms), not the kubelet's 100 ms. A scaled-down node (a
// third of a core standing for four) must deliver its rate smoothly over
// one request's service, a few milliseconds, as the node it stands for
// does and as the lab models it (processor sharing at the limit). Over a
// 100 ms period a third of a core runs a request at full speed for 33 ms
// and then stalls it for 67: a tail the emulation would add, not the node.
// A pod's limit, below a core, is still a burst of 1 ms over a long
// period (16 ms for a sixteenth), so its workers pace themselves to the
// limit at every turn as well (package backend), and its quota only backs
// them.
func cfs(cores float64) (period, quota int64) {
	period = max(1000, int64(math.Round(1000/cores)))
	return period, int64(math.Round(cores * float64(period)))
}

// Keep keeps the runs whose label or routing is listed, in the scenario's
// order.
func (p *Plan) Keep(names []string) error {
	kept := slices.DeleteFunc(slices.Clone(p.Runs), func(r scenario.Run) bool {
		return !slices.Contains(names, r.Label()) && !slices.Contains(names, r.Routing)
	})
	if len(kept) == 0 {
		var labels []string
		for _, r := range p.Runs {
			labels = append(labels, r.Label())
		}
		return &scenario.FieldError{Field: "runs", Value: names, Reason: fmt.Sprintf("none of them is a run of %s; its runs are %v", p.Scenario.Name, labels)}
	}
	p.Runs = kept
	return nil
}

package traffic

import (
	"fmt"
	"math"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/internal/fielderr"
)

// Snapshot is everything an allocator sees about the cluster at one moment.
type Snapshot struct {
	// At is when the decision is made; health hysteresis runs on it.
	At time.Time
	// MeasuredAt is when the measurements were taken. A snapshot that
	// repeats the measurements of the previous one (an event between cycles:
	// a pod deleted, a node NotReady) must carry the same MeasuredAt, so the
	// stateful policies re-route with what they know instead of counting the
	// same observation twice. Zero means "always new".
	MeasuredAt time.Time
	// Nodes of the cluster.
	Nodes []Node
	// Components are the microservices.
	Components []Component
	// Calls are the call-graph edges, upstream → downstream.
	Calls []graph.Call
	// Replicas are the pods of the components.
	Replicas []Replica
	// Delays are measured one-way node-to-node delays; pairs may be missing.
	Delays []graph.Delay
}

// Node is a cluster node.
type Node struct {
	Name string
	// Ready is false for a NotReady node: its replicas get no traffic.
	Ready bool
	// Locality is the node's Istio locality, region/zone/subzone.
	Locality string
	// CPU is the node's allocatable CPU in cores; 0 if unknown.
	CPU float64
}

// Component is one microservice (a Deployment behind a Service).
type Component struct {
	Name string
	// Pick is how its callers pick a pod (its DestinationRule's
	// loadBalancer.simple); the zero value is Istio's default,
	// LEAST_REQUEST.
	Pick Pick
	// RoundRobinUnderTable is true when a table is written with
	// ROUND_ROBIN of its own: proxyless gRPC honours locality weights only
	// under ROUND_ROBIN, so while a table is in force its callers' picks
	// inside a locality are blind whatever Pick says, and Pick is theirs
	// without one.
	RoundRobinUnderTable bool
}

// Replica is one pod.
type Replica struct {
	Name, Component, Node string
	// Ready is the pod's readiness.
	Ready bool
	// CPU is the mean CPU usage over the last interval, in cores; NaN if unknown.
	CPU float64
	// CPULimit is the pod's CPU limit in cores; 0 if unknown (counts as 1).
	CPULimit float64
	// Requests is the request rate served over the last interval (requests
	// per second); NaN if unknown. CPU / Requests is CPU seconds per request.
	Requests float64
	// LatencyP95 is the 95th percentile latency in milliseconds; NaN if unknown.
	LatencyP95 float64
	// LatencyMean is the mean latency in milliseconds over the same
	// requests; NaN or 0 if unknown (no request takes no time).
	LatencyMean float64
	// ErrorRate is the fraction of failed requests; NaN if unknown.
	ErrorRate float64
	// CPUWaiting is the seconds per second during which some of the pod's
	// runnable threads waited for a CPU (its cgroup's CPU pressure, PSI
	// "some"); NaN if unknown.
	CPUWaiting float64
	// ThrottledPeriods is the CFS periods per second in which the pod used
	// up its own CPU quota (its cgroup's throttled periods); NaN if unknown.
	ThrottledPeriods float64
	// CFSPeriod is the period of the pod's own CPU quota; 0 if unknown
	// (the kubelet's, health.Config.CFSPeriod, is then assumed).
	CFSPeriod time.Duration
}

// Limit returns the CPU limit, 1 core when unknown.
func (r Replica) Limit() float64 {
	if r.CPULimit > 0 {
		return r.CPULimit
	}
	return 1
}

// FieldError is bad input: it names the field and the value.
type FieldError = fielderr.Error

// missingOrNonNegative accepts NaN (unknown) and finite values ≥ 0.
func missingOrNonNegative(v float64) bool {
	return math.IsNaN(v) || (v >= 0 && !math.IsInf(v, 0))
}

// Validate checks names and references and that every measurement is NaN
// or a finite non-negative number. It returns the first problem as a
// *FieldError.
func (s Snapshot) Validate() error {
	if err := s.validateAllButDelays(); err != nil {
		return err
	}
	_, err := newDelayTable(s.Nodes, s.Delays)
	return err
}

// validateAllButDelays is Validate without the delays, which NewIndex
// checks while it indexes them: a large cluster's full mesh of delays is
// most of a snapshot, and looking each pair up once instead of twice is a
// visible part of a cycle.
func (s Snapshot) validateAllButDelays() error {
	nodes := make(map[string]bool, len(s.Nodes))
	for i, n := range s.Nodes {
		if n.Name == "" {
			return &FieldError{Field: fmt.Sprintf("nodes[%d].name", i), Value: `""`, Reason: "must not be empty"}
		}
		if nodes[n.Name] {
			return &FieldError{Field: fmt.Sprintf("nodes[%d].name", i), Value: n.Name, Reason: "duplicate node"}
		}
		if math.IsNaN(n.CPU) || math.IsInf(n.CPU, 0) || n.CPU < 0 {
			return &FieldError{Field: fmt.Sprintf("nodes[%d].cpu", i), Value: n.CPU, Reason: "must be ≥ 0 (0 = unknown)"}
		}
		nodes[n.Name] = true
	}
	comps := make(map[string]bool, len(s.Components))
	for i, c := range s.Components {
		if c.Name == "" {
			return &FieldError{Field: fmt.Sprintf("components[%d].name", i), Value: `""`, Reason: "must not be empty"}
		}
		if comps[c.Name] {
			return &FieldError{Field: fmt.Sprintf("components[%d].name", i), Value: c.Name, Reason: "duplicate component"}
		}
		if !c.Pick.valid() {
			return &FieldError{Field: fmt.Sprintf("components[%d].pick", i), Value: string(c.Pick), Reason: fmt.Sprintf("must be %q (by queue) or %q", PickByQueue, PickBlind)}
		}
		comps[c.Name] = true
	}
	for i, c := range s.Calls {
		if !comps[c.From] {
			return &FieldError{Field: fmt.Sprintf("calls[%d].from", i), Value: c.From, Reason: "unknown component"}
		}
		if !comps[c.To] {
			return &FieldError{Field: fmt.Sprintf("calls[%d].to", i), Value: c.To, Reason: "unknown component"}
		}
		if c.From == c.To {
			return &FieldError{Field: fmt.Sprintf("calls[%d].to", i), Value: c.To, Reason: "a component cannot call itself"}
		}
		if !missingOrNonNegative(c.Rate) {
			return &FieldError{Field: fmt.Sprintf("calls[%d].rate", i), Value: c.Rate, Reason: "must be ≥ 0 or NaN (unknown)"}
		}
	}
	names := make(map[string]bool, len(s.Replicas))
	for i, r := range s.Replicas {
		f := func(name string) string { return fmt.Sprintf("replicas[%d].%s", i, name) }
		switch {
		case r.Name == "":
			return &FieldError{Field: f("name"), Value: `""`, Reason: "must not be empty"}
		case names[r.Name]:
			return &FieldError{Field: f("name"), Value: r.Name, Reason: "duplicate replica"}
		case !comps[r.Component]:
			return &FieldError{Field: f("component"), Value: r.Component, Reason: "unknown component"}
		case !nodes[r.Node]:
			return &FieldError{Field: f("node"), Value: r.Node, Reason: "unknown node"}
		}
		names[r.Name] = true
		for _, m := range []struct {
			name string
			v    float64
		}{{"cpu", r.CPU}, {"requests", r.Requests}, {"latencyP95", r.LatencyP95}, {"latencyMean", r.LatencyMean}, {"errorRate", r.ErrorRate}, {"cpuWaiting", r.CPUWaiting}, {"throttledPeriods", r.ThrottledPeriods}} {
			if !missingOrNonNegative(m.v) {
				return &FieldError{Field: f(m.name), Value: m.v, Reason: "must be ≥ 0 or NaN (unknown)"}
			}
		}
		if r.CFSPeriod < 0 {
			return &FieldError{Field: f("cfsPeriod"), Value: r.CFSPeriod, Reason: "must be ≥ 0 (0 = unknown)"}
		}
		if math.IsNaN(r.CPULimit) || math.IsInf(r.CPULimit, 0) || r.CPULimit < 0 {
			return &FieldError{Field: f("cpuLimit"), Value: r.CPULimit, Reason: "must be ≥ 0 (0 = unknown)"}
		}
		if r.ErrorRate > 1 {
			return &FieldError{Field: f("errorRate"), Value: r.ErrorRate, Reason: "must be a fraction in [0, 1]"}
		}
	}
	return nil
}

package emulator

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/allocate"
	"github.com/artt-dev/artt/traffic/istio"
)

// AllocateOptions are the traffic policies' options.
type AllocateOptions = allocate.Options

// ingressName is the pseudo component standing for the ingress gateway, so
// policies route the entry component's traffic like any other call.
const ingressName = "ingress"

// newPolicy returns the traffic policy for table routing, or nil for the
// data-plane policies (random, round-robin, least-request, peak-ewma).
func newPolicy(name string, opts *AllocateOptions) (traffic.Policy, error) {
	if _, ok := scenario.DataPlaneRoutings[name]; ok {
		return nil, nil
	}
	o := allocate.DefaultOptions()
	if opts != nil {
		o = *opts
	}
	o.Parallelism = 1 // the emulator is single-threaded and deterministic
	return allocate.New(name, o)
}

// allocate runs the traffic policy's cycle on a snapshot of the last
// sample, as the artt-traffic controller does, and installs the routing
// tables.
func (e *Emulator) allocate() {
	e.measure()
	e.reallocate()
}

// reallocate runs the traffic policy on the measurements of the last pass,
// as artt-traffic does after a pod or node change.
func (e *Emulator) reallocate() {
	if e.policy == nil {
		return
	}
	a, err := e.policy.Allocate(e.snapshot())
	if err != nil {
		// The controller keeps the last routing when a cycle fails.
		e.res.note(fmt.Sprintf("%.0fs: allocation failed, routing kept: %v", e.now, err))
		return
	}
	e.install(a)
}

// protect runs the policy's fast path on a new sample, as artt-traffic's
// protection loop does at the scrape interval, and installs the routing
// only when a group's health changed.
func (e *Emulator) protect() {
	p, ok := e.policy.(traffic.Protector)
	if !ok {
		return
	}
	e.measure()
	a, changed, err := p.Protect(e.snapshot())
	if err != nil {
		e.res.note(fmt.Sprintf("%.0fs: protection failed, routing kept: %v", e.now, err))
		return
	}
	if changed {
		e.res.protections++
		e.install(a)
	}
}

// measure takes the last sample as a pass of artt-traffic reads it: its
// queries return each pod's newest rates, which a change between passes
// reallocates on without asking again.
func (e *Emulator) measure() {
	if e.measuredAt == e.res.sampledAt && e.measured != nil {
		return
	}
	e.measured = maps.Clone(e.res.lastSample)
	e.measuredAt = e.res.sampledAt
}

// install logs an allocation and installs its weights; a component the
// policy could not route keeps the weights it had, as artt-traffic keeps
// its rule.
func (e *Emulator) install(a traffic.Allocation) {
	if e.allocated != nil {
		e.allocated(e.now, a)
	}
	for _, f := range a.Failed {
		e.res.note(fmt.Sprintf("%.0fs: %s not routed, its weights kept: %v", e.now, f.Component, f.Err))
	}
	if e.debug != nil {
		for _, r := range a.Routes {
			line := fmt.Sprintf("%6.1fs %s:", e.now, r.Component)
			for _, g := range r.Groups {
				line += fmt.Sprintf(" %s=%.3f(%s,%s)", g.Node, g.Share, g.HealthSummary(), g.Basis)
				for _, f := range g.Forecasts {
					line += fmt.Sprintf("[u=%.2f f=%.2f a=%.2f]", f.Utilization, f.Forecast, f.Alpha)
				}
			}
			if r.Envoy {
				line += " | left to Envoy"
			}
			for _, src := range r.Sources {
				line += fmt.Sprintf(" | %s(%.2f)->", src.Node, src.Supply)
				for _, t := range src.To {
					line += fmt.Sprintf("%s:%.2f ", t.Node, t.Value)
				}
			}
			for _, n := range r.Notes {
				line += " | " + n
			}
			e.debug(e.run.Label() + " " + line)
		}
	}
	// The weights go through the conversion artt-traffic writes to Istio:
	// integer percentages per caller locality, checked against istiod's
	// rules. A route that cannot be expressed keeps the last weights, as
	// the controller keeps the last rule.
	for _, r := range a.Routes {
		c := e.byName[r.Component]
		if c == nil {
			continue
		}
		ds, err := istio.Distributes(r, e.locality)
		if err != nil {
			e.res.note(fmt.Sprintf("%.0fs: %s: weights not installed: %v", e.now, r.Component, err))
			continue
		}
		if e.weightLog != nil {
			e.weightLog(r.Component, ds)
		}
		table := make([][]localityWeight, len(e.nodes))
		for _, d := range ds {
			from := e.localityNode[d.From]
			for loc, w := range d.To {
				table[from] = append(table[from], localityWeight{node: e.localityNode[loc], weight: w})
			}
			slices.SortFunc(table[from], func(a, b localityWeight) int { return a.node - b.node })
		}
		c.setTable(table, len(ds) > 0)
	}
	e.res.allocations++
}

// snapshot describes the cluster as the controller's Prometheus queries
// would: the last sample's per-pod CPU, request rate, p95 latency, error
// rate, CPU pressure and own-quota throttled periods; probed delays with
// jitter; pods and nodes (their allocatable CPU, which neither a neighbour
// nor a quota over the pods changes) as the API reports them.
func (e *Emulator) snapshot() traffic.Snapshot {
	at := func(sec float64) time.Time { return time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second))) }
	// Events between samples repeat the last sample's measurements, and say
	// so, as artt-traffic does.
	s := traffic.Snapshot{At: at(e.now), MeasuredAt: at(e.measuredAt)}
	for _, n := range e.nodes {
		s.Nodes = append(s.Nodes, traffic.Node{Name: n.name, Ready: n.ready, Locality: localityOf(n), CPU: n.cores})
	}
	// Every sidecar, the gateway's too, picks by the run's policy; on gRPC
	// under any other than ROUND_ROBIN, artt-traffic writes ROUND_ROBIN
	// with each table (grpclb.go).
	pick := traffic.PickOf(e.run.LBPolicy)
	rrUnderTable := e.grpc && e.run.LBPolicy != "ROUND_ROBIN"
	s.Components = append(s.Components, traffic.Component{Name: ingressName, Pick: pick, RoundRobinUnderTable: rrUnderTable})
	for i, g := range e.ingress {
		s.Replicas = append(s.Replicas, traffic.Replica{
			Name: fmt.Sprintf("%s-%d", ingressName, i), Component: ingressName, Node: g.node.name, Ready: true,
			CPU: math.NaN(), Requests: math.NaN(), LatencyP95: math.NaN(), LatencyMean: math.NaN(), ErrorRate: math.NaN(),
			CPUWaiting: math.NaN(), ThrottledPeriods: math.NaN(),
		})
	}
	s.Calls = append(s.Calls, graph.Call{From: ingressName, To: e.entry.spec.Name, Rate: math.NaN()})
	for _, c := range e.comps {
		s.Components = append(s.Components, traffic.Component{Name: c.spec.Name, Pick: pick, RoundRobinUnderTable: rrUnderTable})
		for _, callee := range c.calls {
			s.Calls = append(s.Calls, graph.Call{From: c.spec.Name, To: callee.spec.Name, Rate: math.NaN()})
		}
		for _, p := range c.pods {
			if p.state == gone {
				continue
			}
			m := e.measured[p.id]
			s.Replicas = append(s.Replicas, traffic.Replica{
				Name: p.name, Component: c.spec.Name, Node: p.node.name,
				Ready: p.state == ready, CPU: m.cpu, CPULimit: c.spec.CPULimit, Requests: m.rps,
				LatencyP95: m.p95, LatencyMean: m.meanLatency, ErrorRate: m.errRate, CPUWaiting: m.waiting, ThrottledPeriods: m.throttled,
			})
		}
	}
	for _, a := range e.nodes {
		for _, b := range e.nodes {
			if a != b {
				s.Delays = append(s.Delays, graph.Delay{From: a.name, To: b.name, Ms: e.hop(a, b, e.rng) * 1000})
			}
		}
	}
	return s
}

// rebuildEndpoints refreshes a component's ready lists.
func (c *component) rebuildEndpoints() {
	c.ready = c.ready[:0]
	for i := range c.readyOn {
		c.readyOn[i] = c.readyOn[i][:0]
	}
	for _, p := range c.pods {
		if p.state == ready && p.node.ready {
			c.ready = append(c.ready, p)
			c.readyOn[p.node.idx] = append(c.readyOn[p.node.idx], p)
		}
	}
	slices.SortStableFunc(c.ready, func(a, b *replica) int { return a.id - b.id })
	c.routingVersion++
}

// localityOf is a node's Istio locality: one per node, as artt-traffic
// requires.
func localityOf(n *node) string { return "lab/zone/" + n.name }

// locality maps a node name to its locality for the istio conversion.
func (e *Emulator) locality(name string) (string, bool) {
	n := e.nodeNamed(name)
	if n == nil {
		return "", false
	}
	return localityOf(n), true
}

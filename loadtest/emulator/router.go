package emulator

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/allocate"
)

// AllocateOptions are the traffic policies' options.
type AllocateOptions = allocate.Options

// ingressName is the pseudo component standing for the ingress gateway, so
// policies route the entry component's traffic like any other call.
const ingressName = "ingress"

// newPolicy returns the traffic policy for table routing, or nil for the
// data-plane policies (random, round-robin, least-request).
func newPolicy(name string, opts *AllocateOptions) (traffic.Policy, error) {
	switch name {
	case "random", "round-robin", "least-request":
		return nil, nil
	}
	o := allocate.DefaultOptions()
	if opts != nil {
		o = *opts
	}
	o.Parallelism = 1 // the emulator is single-threaded and deterministic
	return allocate.New(name, o)
}

// route picks the replica of c that a caller on node from reaches.
func (e *Emulator) route(c *component, from *node) *replica {
	if len(c.ready) == 0 {
		return nil
	}
	switch e.run.Routing {
	case "random":
		return c.ready[e.rng.IntN(len(c.ready))]
	case "round-robin":
		i := c.rr[from.idx] % len(c.ready)
		c.rr[from.idx]++
		return c.ready[i]
	case "least-request":
		// Envoy's default: two random choices, the one with fewer requests
		// outstanding wins.
		a := c.ready[e.rng.IntN(len(c.ready))]
		b := c.ready[e.rng.IntN(len(c.ready))]
		if b.outstanding < a.outstanding {
			return b
		}
		return a
	}
	// Locality-weighted: pick a node by the table's weights among nodes
	// that still have ready endpoints (Envoy drops empty localities and
	// renormalises), then a pod there at random.
	var table []weightedNode
	if c.table != nil {
		table = c.table[from.idx]
	}
	total := 0.0
	for _, w := range table {
		if len(c.readyOn[w.node]) > 0 {
			total += w.weight
		}
	}
	if total <= 0 { // no usable weights yet: every endpoint equally
		return c.ready[e.rng.IntN(len(c.ready))]
	}
	u := e.rng.Float64() * total
	for _, w := range table {
		pods := c.readyOn[w.node]
		if len(pods) == 0 {
			continue
		}
		if u -= w.weight; u < 0 {
			return pods[e.rng.IntN(len(pods))]
		}
	}
	last := table[len(table)-1]
	for i := len(table) - 1; i >= 0; i-- {
		if len(c.readyOn[table[i].node]) > 0 {
			last = table[i]
			break
		}
	}
	pods := c.readyOn[last.node]
	return pods[e.rng.IntN(len(pods))]
}

// allocate runs the traffic policy on a snapshot of the last sample, as the
// artt-traffic controller does, and installs the routing tables.
func (e *Emulator) allocate() {
	if e.policy == nil {
		return
	}
	s := e.snapshot()
	a, err := e.policy.Allocate(s)
	if err != nil {
		// The controller keeps the last routing when a cycle fails.
		e.res.note(fmt.Sprintf("%.0fs: allocation failed, routing kept: %v", e.now, err))
		return
	}
	nodeIdx := make(map[string]int, len(e.nodes))
	for _, n := range e.nodes {
		nodeIdx[n.name] = n.idx
	}
	if e.debug != nil {
		for _, r := range a.Routes {
			line := fmt.Sprintf("%6.1fs %s:", e.now, r.Component)
			for _, g := range r.Groups {
				line += fmt.Sprintf(" %s=%.3f(%s,%s)", g.Node, g.Share, g.Health, g.Basis)
				for _, f := range g.Forecasts {
					line += fmt.Sprintf("[u=%.2f f=%.2f a=%.2f]", f.Utilization, f.Forecast, f.Alpha)
				}
			}
			for _, src := range r.Sources {
				line += fmt.Sprintf(" | %s(%.2f)->", src.Node, src.Supply)
				for _, t := range src.To {
					line += fmt.Sprintf("%s:%.2f ", t.Node, t.Value)
				}
			}
			e.debug(e.run.Label() + " " + line)
		}
	}
	for _, r := range a.Routes {
		c := e.byName[r.Component]
		if c == nil {
			continue
		}
		c.table = make([][]weightedNode, len(e.nodes))
		for _, src := range r.Sources {
			var row []weightedNode
			for _, t := range src.To {
				row = append(row, weightedNode{node: nodeIdx[t.Node], weight: t.Value})
			}
			c.table[nodeIdx[src.Node]] = row
		}
	}
	e.res.allocations++
}

// snapshot describes the cluster as the controller's Prometheus queries
// would: the last sample's per-pod CPU, request rate, p95 latency and error
// rate; probed delays with jitter; pods and nodes as the API reports them.
func (e *Emulator) snapshot() traffic.Snapshot {
	at := func(sec float64) time.Time { return time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second))) }
	// Events between samples repeat the last sample's measurements, and say
	// so, as artt-traffic does.
	s := traffic.Snapshot{At: at(e.now), MeasuredAt: at(e.res.sampledAt)}
	for _, n := range e.nodes {
		s.Nodes = append(s.Nodes, traffic.Node{Name: n.name, Ready: n.ready, Locality: "lab/zone/" + n.name})
	}
	s.Components = append(s.Components, traffic.Component{Name: ingressName})
	s.Replicas = append(s.Replicas, traffic.Replica{
		Name: ingressName, Component: ingressName, Node: e.ingress.name, Ready: true,
		CPU: math.NaN(), Requests: math.NaN(), LatencyP95: math.NaN(), ErrorRate: math.NaN(),
	})
	s.Calls = append(s.Calls, traffic.Call{From: ingressName, To: e.entry.spec.Name, Rate: math.NaN()})
	for _, c := range e.comps {
		s.Components = append(s.Components, traffic.Component{Name: c.spec.Name})
		for _, callee := range c.calls {
			s.Calls = append(s.Calls, traffic.Call{From: c.spec.Name, To: callee.spec.Name, Rate: math.NaN()})
		}
		for _, p := range c.pods {
			if p.state == gone {
				continue
			}
			m := e.res.lastSample[p.id]
			s.Replicas = append(s.Replicas, traffic.Replica{
				Name: p.name, Component: c.spec.Name, Node: p.node.name,
				Ready: p.state == ready, CPU: m.cpu, CPULimit: c.spec.CPULimit, Requests: m.rps,
				LatencyP95: m.p95, ErrorRate: m.errRate,
			})
		}
	}
	for _, a := range e.nodes {
		for _, b := range e.nodes {
			if a != b {
				s.Delays = append(s.Delays, traffic.Delay{From: a.name, To: b.name, Ms: e.hop(a, b) * 1000})
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
}

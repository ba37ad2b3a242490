package emulator

import (
	"fmt"
	"math"
	"slices"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/placement/larp"
)

// placer is the run's placement policy: where the initial pods go, and the
// pods created later (autoscaling, replacements).
type placer interface {
	// initial gives, per component and replica index, the node of each
	// initial pod; a nil node leaves it to the default scheduler when the
	// pod is created.
	initial() ([][]*node, error)
	// next chooses the node of a pod created later; nil when none fits.
	next(c *component) *node
	// created learns of a pod just created on the node chosen for it.
	created(p *replica)
	// gone forgets a pod that left.
	gone(p *replica)
}

func newPlacer(e *Emulator, policy string) (placer, error) {
	switch policy {
	case "larp":
		return &larpPlacer{e: e, replicaOf: map[*replica]larp.Replica{}, pending: map[string][]larp.Replica{}}, nil
	case "network-overhead":
		return networkOverheadPlacer{e}, nil
	case "", "default":
		return defaultPlacer{e}, nil
	}
	return nil, fmt.Errorf("placement %q: unknown", policy)
}

// requested is the CPU the pods on a node request (terminating ones too,
// as the scheduler counts them until they are gone).
func (n *node) requested() float64 {
	total := 0.0
	for _, p := range n.replicas {
		if p.state != gone {
			total += p.comp.spec.CPURequest
		}
	}
	return total
}

// fits reports whether a Ready node has room for one more pod of c, with
// extra already promised on it.
func (n *node) fits(c *component, extra float64) bool {
	return n.ready && n.requested()+extra+c.spec.CPURequest <= n.cores+1e-9
}

// defaultPlacer is Kubernetes' scheduler as the lab has always modelled
// it: the components' placement pins, else LeastAllocated (schedule).
type defaultPlacer struct{ e *Emulator }

func (d defaultPlacer) initial() ([][]*node, error) {
	out := make([][]*node, len(d.e.comps))
	for i, c := range d.e.comps {
		out[i] = make([]*node, c.spec.Replicas)
		if len(c.spec.Placement) > 0 {
			for r := range out[i] {
				out[i][r] = d.e.nodeNamed(c.spec.Placement[r%len(c.spec.Placement)])
			}
		}
	}
	return out, nil
}

func (d defaultPlacer) next(c *component) *node { return d.e.schedule(c) }
func (defaultPlacer) created(*replica)          {}
func (defaultPlacer) gone(*replica)             {}

// larpPlacer places by LATA's placement stage (package placement/larp):
// the initial pods by the greedy plan; a later pod joins the group short of
// its component, on the group's node when it has room, else on the Ready
// node with room nearest to it.
type larpPlacer struct {
	e    *Emulator
	plan larp.Plan
	// replicaOf maps pods to their place in the plan; pending holds the
	// plan's initial replicas of each component until their pods exist.
	replicaOf map[*replica]larp.Replica
	pending   map[string][]larp.Replica
}

func (l *larpPlacer) initial() ([][]*node, error) {
	e := l.e
	var p larp.Problem
	for _, c := range e.comps {
		p.Components = append(p.Components, larp.Component{Name: c.spec.Name, Replicas: c.spec.Replicas, CPU: c.spec.CPURequest})
		for _, callee := range c.spec.Calls {
			p.Calls = append(p.Calls, graph.Call{From: c.spec.Name, To: callee, Rate: math.NaN()})
		}
	}
	for i, n := range e.nodes {
		p.Nodes = append(p.Nodes, larp.Node{Name: n.name, CPU: n.cores})
		for j, m := range e.nodes {
			if i != j {
				p.Delays = append(p.Delays, graph.Delay{From: n.name, To: m.name, Ms: e.delayMs[i][j]})
			}
		}
	}
	plan, err := larp.Greedy(p)
	if err != nil {
		return nil, fmt.Errorf("placement larp: %w", err)
	}
	l.plan = plan
	out := make([][]*node, len(e.comps))
	for i, c := range e.comps {
		out[i] = make([]*node, c.spec.Replicas)
		for r := range out[i] {
			out[i][r] = e.nodeNamed(plan.NodeOf(c.spec.Name, r))
			l.pending[c.spec.Name] = append(l.pending[c.spec.Name], larp.Replica{Component: c.spec.Name, Index: r})
		}
	}
	return out, nil
}

// created ties a pod just created to its plan replica.
func (l *larpPlacer) created(p *replica) {
	if q := l.pending[p.comp.spec.Name]; len(q) > 0 {
		l.replicaOf[p] = q[0]
		l.pending[p.comp.spec.Name] = q[1:]
	}
}

func (l *larpPlacer) next(c *component) *node {
	g, err := l.plan.AddReplica(c.spec.Name, c.spec.CPURequest, 0)
	if err != nil {
		return l.e.schedule(c)
	}
	group := l.plan.Groups[g]
	added := group.Replicas[len(group.Replicas)-1]
	l.pending[c.spec.Name] = append(l.pending[c.spec.Name], added)
	home := l.e.nodeNamed(group.Node)
	if home.fits(c, 0) {
		return home
	}
	var best *node
	for _, n := range l.e.nodes {
		if n != home && n.fits(c, 0) && (best == nil || l.e.delayMs[home.idx][n.idx] < l.e.delayMs[home.idx][best.idx]) {
			best = n
		}
	}
	if best == nil {
		l.pending[c.spec.Name] = l.pending[c.spec.Name][:len(l.pending[c.spec.Name])-1]
		l.plan.RemoveReplica(added, c.spec.CPURequest, 0)
	}
	return best
}

func (l *larpPlacer) gone(p *replica) {
	if r, ok := l.replicaOf[p]; ok {
		l.plan.RemoveReplica(r, p.comp.spec.CPURequest, 0)
		delete(l.replicaOf, p)
	}
}

// networkOverheadPlacer follows scheduler-plugins' NetworkOverhead plugin
// (pkg/networkaware/networkoverhead) as its README configures it: Filter
// by room (NodeResourcesFit) and by maxNetworkCost, which the lab's
// AppGroup does not set, so nothing is filtered there; Score NetworkOverhead
// at weight 5 plus BalancedAllocation at weight 1, which with CPU the only
// resource scores every node alike. NetworkOverhead's score is a node's
// accumulated cost to the placed pods of the pod's dependencies: 0 on the
// same node, otherwise the cost between the nodes' zones, here each node
// its own zone with the one-way delay as its cost (the CRD holds integers;
// the lab keeps the fraction of a millisecond, which only helps the
// plugin). Scores are normalised so the cheapest node gets 100; the
// scheduler picks at random among the best. The AppGroup lists every call
// in both directions, so a pod counts its callers and its callees alike;
// pods are queued in the AppGroup's topological order (TopologicalSort,
// callers first).
type networkOverheadPlacer struct{ e *Emulator }

func (n networkOverheadPlacer) initial() ([][]*node, error) {
	e := n.e
	out := make([][]*node, len(e.comps))
	promised := make([]float64, len(e.nodes))
	placed := map[*component][]*node{}
	for _, c := range topologicalOrder(e.comps) {
		out[c.idx] = make([]*node, c.spec.Replicas)
		for r := range c.spec.Replicas {
			best := n.choose(c, func(nd *node) bool { return nd.fits(c, promised[nd.idx]) }, func(partner *component) []*node { return placed[partner] })
			if best == nil {
				return nil, fmt.Errorf("placement network-overhead: no node has room for %s's replica %d (CPU request %.2f)", c.spec.Name, r, c.spec.CPURequest)
			}
			out[c.idx][r] = best
			promised[best.idx] += c.spec.CPURequest
			placed[c] = append(placed[c], best)
		}
	}
	return out, nil
}

func (n networkOverheadPlacer) next(c *component) *node {
	return n.choose(c, func(nd *node) bool { return nd.fits(c, 0) }, func(partner *component) []*node {
		var at []*node
		for _, p := range partner.pods {
			if p.state != gone {
				at = append(at, p.node)
			}
		}
		return at
	})
}

func (networkOverheadPlacer) created(*replica) {}
func (networkOverheadPlacer) gone(*replica)    {}

// choose scores the nodes that pass the filter and picks among the best at
// random, as kube-scheduler's selectHost does.
func (n networkOverheadPlacer) choose(c *component, filter func(*node) bool, podsOf func(*component) []*node) *node {
	e := n.e
	var placed []*node // the nodes of the placed pods c depends on, one entry per pod
	for _, partner := range partners(e, c) {
		placed = append(placed, podsOf(partner)...)
	}
	var candidates []*node
	var costs []float64
	for _, nd := range e.nodes {
		if !filter(nd) {
			continue
		}
		cost := 0.0
		for _, at := range placed {
			if at != nd {
				cost += e.delayMs[nd.idx][at.idx]
			}
		}
		candidates = append(candidates, nd)
		costs = append(costs, cost)
	}
	if len(candidates) == 0 {
		return nil
	}
	lo, hi := slices.Min(costs), slices.Max(costs)
	var best []*node
	bestScore := math.Inf(-1)
	for i, nd := range candidates {
		score := 100.0 // NormalizeScore: all equal when max == min
		if hi > lo {
			score = 100 - math.Trunc(100*(costs[i]-lo)/(hi-lo))
		}
		switch {
		case score > bestScore:
			best, bestScore = []*node{nd}, score
		case score == bestScore:
			best = append(best, nd)
		}
	}
	return best[e.rng.IntN(len(best))]
}

// partners are the components a pod of c depends on in the AppGroup: its
// callees and its callers.
func partners(e *Emulator, c *component) []*component {
	out := slices.Clone(c.calls)
	for _, up := range e.comps {
		if slices.Contains(up.calls, c) && !slices.Contains(out, up) {
			out = append(out, up)
		}
	}
	return out
}

// topologicalOrder is Kahn's order of the call graph, callers first, ties
// in the scenario's order.
func topologicalOrder(comps []*component) []*component {
	indegree := map[*component]int{}
	for _, c := range comps {
		for _, d := range c.calls {
			indegree[d]++
		}
	}
	var order []*component
	done := map[*component]bool{}
	for len(order) < len(comps) {
		progressed := false
		for _, c := range comps {
			if !done[c] && indegree[c] == 0 {
				done[c] = true
				order = append(order, c)
				for _, d := range c.calls {
					indegree[d]--
				}
				progressed = true
				break
			}
		}
		if !progressed { // a cycle (validation rejects them): the rest in order
			for _, c := range comps {
				if !done[c] {
					done[c] = true
					order = append(order, c)
				}
			}
		}
	}
	return order
}

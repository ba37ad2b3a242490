package flow

import (
	"github.com/artt-dev/artt/internal/heap"
	"math"
	"testing"
)

// minCostFlowSSP is the solver MinCostFlow replaced, kept as its test
// oracle and benchmark baseline. It sends exactly amount units from s to t at the least total
// cost by successive shortest paths: Dijkstra over reduced costs with
// Johnson potentials (J. Edmonds and R. M. Karp, JACM 19(2), 1972), each path
// augmented by its bottleneck. Arc costs must be non-negative. It returns the
// total cost and leaves the flow on each arc; ErrInfeasible when less than
// amount can be sent (the flow sent so far stays in the network).
func (g *Network) minCostFlowSSP(s, t int, amount float64) (float64, error) {
	for i := 0; i < len(g.arcs); i += 2 {
		if g.arcs[i].cost < 0 {
			return 0, ErrNegativeCost
		}
	}
	n := g.nodes
	sp := &shortestPaths{
		potential: make([]float64, n),
		dist:      make([]float64, n),
		prevArc:   make([]int, n),
		done:      make([]bool, n),
		// Dense graphs (the bipartite link sets here are nearly complete)
		// are faster with an O(V²) scan than with a heap.
		dense: len(g.arcs) >= n*n/4,
		queue: heap.New(closer),
	}
	remaining := amount
	total := 0.0
	for remaining > Epsilon*max(1, amount) {
		sp.run(g, s, t)
		if math.IsInf(sp.dist[t], 1) {
			return total, ErrInfeasible
		}
		// The search stopped once t was settled; capping every distance at
		// dist(t) keeps all reduced costs non-negative.
		for v := range sp.potential {
			sp.potential[v] += min(sp.dist[v], sp.dist[t])
		}
		push := remaining
		for v := t; v != s; v = g.arcs[sp.prevArc[v]^1].to {
			push = min(push, g.arcs[sp.prevArc[v]].capacity)
		}
		for v := t; v != s; v = g.arcs[sp.prevArc[v]^1].to {
			id := sp.prevArc[v]
			g.arcs[id].capacity -= push
			g.arcs[id^1].capacity += push
			total += push * g.arcs[id].cost
		}
		remaining -= push
	}
	return total, nil
}

// shortestPaths is Dijkstra's algorithm over reduced costs
// cost(u,v) + π(u) − π(v), which the potentials keep non-negative.
type shortestPaths struct {
	potential, dist []float64
	prevArc         []int
	done            []bool
	dense           bool
	queue           heap.Heap[distItem]
}

// run computes distances from s until t is settled (or everything
// reachable is).
func (sp *shortestPaths) run(g *Network, s, t int) {
	for i := range sp.dist {
		sp.dist[i] = math.Inf(1)
		sp.prevArc[i] = -1
		sp.done[i] = false
	}
	sp.dist[s] = 0
	relax := func(u int) {
		sp.done[u] = true
		for _, id := range g.adj(u) {
			a := &g.arcs[id]
			if a.capacity <= Epsilon || sp.done[a.to] {
				continue
			}
			// Reduced costs are ≥ 0 up to rounding; clamp the rounding.
			rc := max(a.cost+sp.potential[u]-sp.potential[a.to], 0)
			if nd := sp.dist[u] + rc; nd < sp.dist[a.to] {
				sp.dist[a.to] = nd
				sp.prevArc[a.to] = int(id)
				if !sp.dense {
					sp.queue.Push(distItem{a.to, nd})
				}
			}
		}
	}
	if sp.dense {
		for {
			u, best := -1, math.Inf(1)
			for v, d := range sp.dist {
				if !sp.done[v] && d < best {
					u, best = v, d
				}
			}
			if u < 0 {
				return
			}
			if u == t {
				sp.done[u] = true
				return
			}
			relax(u)
		}
	}
	sp.queue.Reset()
	sp.queue.Push(distItem{s, 0})
	for sp.queue.Len() > 0 {
		it := sp.queue.Pop()
		if it.node == t {
			return
		}
		if !sp.done[it.node] {
			relax(it.node)
		}
	}
}

type distItem struct {
	node int
	dist float64
}

// closer orders the search by distance; ties go by node number so the
// search order, and so the result, is deterministic.
func closer(a, b *distItem) bool {
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	return a.node < b.node
}

// The oracle itself is checked on the hand-worked instance before it
// judges the simplex: two sources (0.6, 0.4), two sinks (0.5 each), links
// a→x 1, a→y 4, b→x 2, b→y 1; the optimum costs 1.3.
func TestOracleHandWorked(t *testing.T) {
	g := NewNetwork(6)
	s, a, b, x, y, tt := 0, 1, 2, 3, 4, 5
	g.AddArc(s, a, 0.6, 0)
	g.AddArc(s, b, 0.4, 0)
	g.AddArc(a, x, Inf, 1)
	g.AddArc(a, y, Inf, 4)
	g.AddArc(b, x, Inf, 2)
	g.AddArc(b, y, Inf, 1)
	g.AddArc(x, tt, 0.5, 0)
	g.AddArc(y, tt, 0.5, 0)
	cost, err := g.minCostFlowSSP(s, tt, 1)
	if err != nil || math.Abs(cost-1.3) > 1e-12 {
		t.Errorf("oracle: cost %v, %v; want 1.3", cost, err)
	}
}

package flow

import "math"

// Inf is an unbounded capacity.
var Inf = math.Inf(1)

// Network is a directed graph with capacities and costs on its arcs. Each
// arc is stored with its residual twin, so algorithms can read the flow they
// left on every arc.
type Network struct {
	adj  [][]int // node → arc indices (forward and residual)
	arcs []arc
}

type arc struct {
	to       int
	capacity float64 // residual capacity
	cost     float64
	original float64 // capacity before any flow; 0 for residual twins
}

// NewNetwork returns a network with n nodes numbered 0…n−1.
func NewNetwork(n int) *Network {
	return &Network{adj: make([][]int, n)}
}

// NewNetworkSized is NewNetwork with room for arcs arcs, so building a large
// network does not grow its slices again and again.
func NewNetworkSized(n, arcs int) *Network {
	return &Network{adj: make([][]int, n), arcs: make([]arc, 0, 2*arcs)}
}

// Nodes is the number of nodes.
func (g *Network) Nodes() int { return len(g.adj) }

// AddArc adds an arc from → to with the given capacity (Inf for unbounded)
// and cost per unit of flow, and returns its id for Flow.
func (g *Network) AddArc(from, to int, capacity, cost float64) int {
	id := len(g.arcs)
	g.arcs = append(g.arcs, arc{to: to, capacity: capacity, cost: cost, original: capacity})
	g.arcs = append(g.arcs, arc{to: from, capacity: 0, cost: -cost})
	g.adj[from] = append(g.adj[from], id)
	g.adj[to] = append(g.adj[to], id+1)
	return id
}

// Flow is the flow on arc id after an algorithm ran.
func (g *Network) Flow(id int) float64 {
	return g.arcs[id^1].capacity
}

// Reset removes all flow.
func (g *Network) Reset() {
	for i := 0; i < len(g.arcs); i += 2 {
		g.arcs[i].capacity = g.arcs[i].original
		g.arcs[i+1].capacity = 0
	}
}

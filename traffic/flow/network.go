package flow

import "math"

// Inf is an unbounded capacity.
var Inf = math.Inf(1)

// Network is a directed graph with capacities and costs on its arcs. Each
// arc is stored with its residual twin, so algorithms can read the flow they
// left on every arc. The arcs leaving each node are indexed only when an
// algorithm walks them (maximum flow does; the simplex does not), in one
// pass, so building a network is two appends per arc. The index leaves a
// few free places after each node's arcs, so arcs added between two
// maximum flows (NTAM's slow-link search adds a few dozen to ten thousand)
// go into it without indexing the network again.
type Network struct {
	nodes int
	arcs  []arc
	// start and out index the arcs (forward and residual) by tail node:
	// node u's are out[start[u]:fill[u]], once indexed is set, and
	// out[fill[u]:start[u+1]] is free for arcs added later.
	start, out, fill []int32
	indexed          bool
	// MaxFlow's working arrays, kept for the next call.
	level, next, queue []int
}

type arc struct {
	to       int
	capacity float64 // residual capacity
	cost     float64
	original float64 // capacity before any flow; 0 for residual twins
}

// NewNetwork returns a network with n nodes numbered 0…n−1.
func NewNetwork(n int) *Network {
	return &Network{nodes: n}
}

// NewNetworkSized is NewNetwork with room for arcs arcs, so building a large
// network does not grow its slices again and again.
func NewNetworkSized(n, arcs int) *Network {
	return &Network{nodes: n, arcs: make([]arc, 0, 2*arcs)}
}

// Rebuild empties the network and gives it n nodes, keeping its arrays for
// the arcs added next: a caller that builds a network per problem spares
// the allocation and the garbage collector's work.
func (g *Network) Rebuild(n int) {
	g.nodes, g.arcs, g.indexed = n, g.arcs[:0], false
}

// Nodes is the number of nodes.
func (g *Network) Nodes() int { return g.nodes }

// AddArc adds an arc from → to with the given capacity (Inf for unbounded)
// and cost per unit of flow, and returns its id for Flow.
func (g *Network) AddArc(from, to int, capacity, cost float64) int {
	id := len(g.arcs)
	g.arcs = append(g.arcs, arc{to: to, capacity: capacity, cost: cost, original: capacity})
	g.arcs = append(g.arcs, arc{to: from, capacity: 0, cost: -cost})
	if g.indexed {
		// One place after each end's arcs, taken in turn, so an arc from a
		// node to itself takes two; a full end is indexed again anew.
		g.indexed = g.place(from, id) && g.place(to, id+1)
	}
	return id
}

// place puts arc id in a free place after u's arcs in the index, and
// reports whether there was one.
func (g *Network) place(u, id int) bool {
	if g.fill[u] >= g.start[u+1] {
		return false
	}
	g.out[g.fill[u]] = int32(id)
	g.fill[u]++
	return true
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

// adj returns the ids of the arcs leaving u (forward and residual), in the
// order they were added.
func (g *Network) adj(u int) []int32 {
	if !g.indexed {
		g.index()
	}
	return g.out[g.start[u]:g.fill[u]]
}

// indexSlack is the number of free places the index leaves after each
// node's arcs.
const indexSlack = 4

func (g *Network) index() {
	g.start = resize(g.start, g.nodes+1)
	for i := range g.arcs {
		g.start[g.arcs[i^1].to+1]++
	}
	for u := range g.nodes {
		g.start[u+1] += g.start[u] + indexSlack
	}
	g.fill = grow(g.fill, g.nodes)
	copy(g.fill, g.start)
	g.out = grow(g.out, len(g.arcs)+indexSlack*g.nodes)
	for i := range g.arcs {
		from := g.arcs[i^1].to
		g.out[g.fill[from]] = int32(i)
		g.fill[from]++
	}
	g.indexed = true
}

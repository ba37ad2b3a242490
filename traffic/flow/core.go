package flow

import "math"

// A transportation problem between a hundred upstream and a hundred
// downstream nodes has ten thousand lanes, and an optimal flow uses at most
// two hundred of them, nearly all among each end's cheapest few. Transport
// therefore prices a core first: each supply's and each demand's
// coreLanesPerEnd cheapest lanes. When no core lane can enter, one pass
// prices the other lanes against the same potentials, and those whose entry
// would lower the cost join the core; the simplex goes on from its current
// tree. It stops when that pass finds none, which is the optimality test on
// every lane, so the answer is the one pricing every lane gives; what
// changes is that each pivot is chosen among a few hundred candidates
// instead of ten thousand (the "restricted master" of column generation, or
// a candidate list in network simplex codes).
const coreLanesPerEnd = 8

// loadLanes fills the simplex's real arcs from the lanes, core lanes first
// and each part in lane order, records which lane every arc is (laneOf),
// and sets pricing to the core. When no end has more than coreLanesPerEnd
// lanes, every lane is in the core, in lane order. The lanes must have been
// checked to join existing supplies and demands.
func (ns *simplex) loadLanes(nu int, lanes []Lane) {
	const k = coreLanesPerEnd
	ends := ns.n
	// Each end keeps its k cheapest lanes sorted by cost, and the cost a
	// lane must beat to join them (+Inf until it holds k): most lanes are
	// turned away by that one comparison. A lane costing the same as a
	// kept one goes after it, so ties keep lane order.
	ns.cheapest = resize(ns.cheapest, ends*k)
	ns.cheapestCost = resize(ns.cheapestCost, ends*k)
	ns.bar = resize(ns.bar, ends)
	ns.tailFill = resize(ns.tailFill, ends) // how many of cheapest each end holds
	cheapest, costs, bar, held := ns.cheapest, ns.cheapestCost, ns.bar, ns.tailFill
	for end := range bar {
		bar[end] = math.Inf(1)
	}
	keep := func(end int, lane int32, c float64) {
		best, bestCost := cheapest[end*k:end*k+k], costs[end*k:end*k+k]
		n := int(held[end])
		i := min(n, k-1)
		for i > 0 && bestCost[i-1] > c {
			best[i], bestCost[i] = best[i-1], bestCost[i-1]
			i--
		}
		best[i], bestCost[i] = lane, c
		if n < k {
			held[end]++
		}
		if held[end] == k {
			bar[end] = bestCost[k-1]
		}
	}
	for l, lane := range lanes {
		c := lane.Cost
		if u := int(lane.From); c < bar[u] {
			keep(u, int32(l), c)
		}
		if v := nu + int(lane.To); c < bar[v] {
			keep(v, int32(l), c)
		}
	}
	ns.inCore = resize(ns.inCore, len(lanes))
	core := 0
	for end := range ends {
		for _, l := range cheapest[end*k : end*k+int(held[end])] {
			if !ns.inCore[l] {
				ns.inCore[l] = true
				core++
			}
		}
	}
	// One pass: core lanes from the front, the others after them, each
	// part in lane order.
	ns.laneOf = resize(ns.laneOf, len(lanes))
	inCore, rest := 0, core
	for l, lane := range lanes {
		arc := &rest
		if ns.inCore[l] {
			arc = &inCore
		}
		a := *arc
		*arc++
		ns.laneOf[a] = int32(l)
		ns.src[a], ns.dst[a] = lane.From, int32(nu)+lane.To
		ns.capacity[a], ns.cost[a] = Inf, lane.Cost
	}
	ns.priced = core
}

// priceRest prices the arcs outside the core against the current
// potentials and moves those whose entry would lower the cost into it. It
// reports whether any moved. Arcs outside the core have never entered the
// tree, so they sit at their lower bound with no flow, and swapping two of
// them changes nothing the tree refers to.
func (ns *simplex) priceRest() bool {
	moved := false
	for e := ns.priced; e < ns.m; e++ {
		if ns.cost[e]+ns.pi[ns.src[e]]-ns.pi[ns.dst[e]] < -ns.costEps {
			ns.swapArcs(e, ns.priced)
			ns.priced++
			moved = true
		}
	}
	return moved
}

// swapArcs exchanges two real arcs that are both outside the tree with no flow.
func (ns *simplex) swapArcs(a, b int) {
	if a == b {
		return
	}
	ns.src[a], ns.src[b] = ns.src[b], ns.src[a]
	ns.dst[a], ns.dst[b] = ns.dst[b], ns.dst[a]
	ns.capacity[a], ns.capacity[b] = ns.capacity[b], ns.capacity[a]
	ns.cost[a], ns.cost[b] = ns.cost[b], ns.cost[a]
	ns.laneOf[a], ns.laneOf[b] = ns.laneOf[b], ns.laneOf[a]
}

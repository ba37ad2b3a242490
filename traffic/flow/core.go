package flow

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
	ns.cheapest = resize(ns.cheapest, ends*k)
	ns.tailFill = resize(ns.tailFill, ends) // how many of cheapest each end holds
	ns.inCore = resize(ns.inCore, len(lanes))
	cheapest, held := ns.cheapest, ns.tailFill
	// Each end keeps its k cheapest lanes sorted by cost; a lane costing
	// the same as a kept one goes after it, so ties keep lane order.
	keep := func(end int, lane int32) {
		best := cheapest[end*k : end*k+k]
		n := int(held[end])
		c := lanes[lane].Cost
		if n == k && c >= lanes[best[k-1]].Cost {
			return
		}
		i := min(n, k-1)
		for i > 0 && lanes[best[i-1]].Cost > c {
			best[i] = best[i-1]
			i--
		}
		best[i] = lane
		if n < k {
			held[end]++
		}
	}
	for l, lane := range lanes {
		keep(int(lane.From), int32(l))
		keep(nu+int(lane.To), int32(l))
	}
	for end := range ends {
		for _, l := range cheapest[end*k : end*k+int(held[end])] {
			ns.inCore[l] = true
		}
	}
	ns.laneOf = resize(ns.laneOf, len(lanes))
	arc := 0
	for _, core := range []bool{true, false} {
		for l, lane := range lanes {
			if ns.inCore[l] != core {
				continue
			}
			ns.laneOf[arc] = int32(l)
			ns.src[arc], ns.dst[arc] = lane.From, int32(nu)+lane.To
			ns.capacity[arc], ns.cost[arc] = Inf, lane.Cost
			arc++
		}
		if core {
			ns.priced = arc
		}
	}
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

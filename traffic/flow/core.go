package flow

import (
	"fmt"
	"math"
)

// A transportation problem between a hundred upstream and a hundred
// downstream nodes has ten thousand lanes, and an optimal flow uses at most
// two hundred of them, nearly all among each end's cheapest few. Transport
// therefore prices a core first: each supply's and each demand's
// coreLanesPerEnd cheapest lanes (TransportFrom: the lanes the previous
// answer used). When no core lane can enter, one pass prices the other
// lanes against the same potentials, and each end's lane whose entry would
// lower the cost most joins the core; the simplex goes on from its current
// tree. It stops when that pass finds none, which is the optimality test on
// every lane, so the answer is the one pricing every lane gives; what
// changes is that each pivot is chosen among a few hundred candidates
// instead of ten thousand (the "restricted master" of column generation, or
// a candidate list in network simplex codes).
const coreLanesPerEnd = 8

// loadLanes checks the lanes, fills the simplex's real arcs with the core
// lanes (in lane order, laneOf recording which lane each arc is) and sets
// pricing to them; the other lanes stay in the lane list until priceRest
// brings one in. When no end has more than coreLanesPerEnd lanes, every
// lane is in the core. With a previous answer (TransportFrom), the core is
// the lanes that carried flow in it, and the cheapest lanes of any end that
// none of those touch. nu is the number of supplies; the simplex must have
// been sized for the supplies, the demands and every lane.
func (ns *simplex) loadLanes(nu int, lanes []Lane, previous []float64) error {
	const k = coreLanesPerEnd
	ends, nv := ns.n, ns.n-nu
	// Each end keeps its k cheapest lanes sorted by cost, and the cost a
	// lane must beat to join them (+Inf until it holds k): most lanes are
	// turned away by that one comparison. A lane costing the same as a
	// kept one goes after it, so ties keep lane order.
	ns.cheapest = resize(ns.cheapest, ends*k)
	ns.cheapestCost = resize(ns.cheapestCost, ends*k)
	ns.bar = resize(ns.bar, ends)
	ns.held = resize(ns.held, ends) // how many of cheapest each end holds
	cheapest, costs, bar, held := ns.cheapest, ns.cheapestCost, ns.bar, ns.held
	for end := range bar {
		bar[end] = math.Inf(1)
	}
	// A lane that carried flow in the previous answer is priced from the
	// start, and its ends start with such lanes alone (their bar turns
	// every other lane away); a new end, or one the previous answer left
	// without flow, gets its cheapest.
	ns.inCore = resize(ns.inCore, len(lanes))
	for l, f := range previous {
		if lane := lanes[l]; f > 0 && int(lane.From) < nu && int(lane.To) < nv && lane.From >= 0 && lane.To >= 0 {
			ns.inCore[l] = true
			bar[lane.From], bar[nu+int(lane.To)] = math.Inf(-1), math.Inf(-1)
		}
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
	ns.maxCost = 0
	for l, lane := range lanes {
		if lane.From < 0 || int(lane.From) >= nu || lane.To < 0 || int(lane.To) >= nv {
			return fmt.Errorf("lane %d runs %d → %d, outside %d supplies and %d demands", l, lane.From, lane.To, nu, nv)
		}
		c := lane.Cost
		if !(c >= 0) || math.IsInf(c, 1) {
			return fmt.Errorf("lane %d costs %v: %w", l, c, ErrNegativeCost)
		}
		ns.maxCost = max(ns.maxCost, c)
		if u := int(lane.From); c < bar[u] {
			keep(u, int32(l), c)
		}
		if v := nu + int(lane.To); c < bar[v] {
			keep(v, int32(l), c)
		}
	}
	for end := range ends {
		for _, l := range cheapest[end*k : end*k+int(held[end])] {
			ns.inCore[l] = true
		}
	}
	ns.laneOf = grow(ns.laneOf, len(lanes))
	ns.priced = 0
	for l, lane := range lanes {
		if ns.inCore[l] {
			ns.addLane(nu, int32(l), lane)
		}
	}
	return nil
}

// addLane makes a lane the next priced arc, at its lower bound with no flow.
func (ns *simplex) addLane(nu int, l int32, lane Lane) {
	a := ns.priced
	ns.laneOf[a] = l
	ns.src[a], ns.dst[a] = lane.From, int32(nu)+lane.To
	ns.capacity[a], ns.cost[a] = Inf, lane.Cost
	ns.state[a], ns.flow[a] = atLower, 0
	ns.priced++
}

// priceRest prices the lanes outside the core against the current
// potentials and brings in, for each supply and each demand, the one lane
// whose entry would lower the cost most, if any would. It reports whether
// any came. One lane per end, not every lane that would lower the cost:
// after a warm start (TransportFrom) the core often cannot carry the new
// amounts by itself, the nodes it leaves short hang on artificial arcs of
// very large cost, and against their potentials nearly every lane of those
// nodes prices as an improvement. Taking them all brought eighteen hundred
// of ten thousand lanes into a 100 × 100 problem's core, and pricing them
// cost more than the warm start saved; the most improving lane of each end
// is the one the simplex would choose first among them.
func (ns *simplex) priceRest(nu int, lanes []Lane) bool {
	ns.violation = grow(ns.violation, ns.n)
	ns.violator = grow(ns.violator, ns.n)
	violation, violator := ns.violation, ns.violator
	for end := range violation {
		violation[end], violator[end] = -ns.costEps, -1
	}
	pi, inCore, eps := ns.pi, ns.inCore, -ns.costEps
	for l, lane := range lanes {
		u, v := int(lane.From), nu+int(lane.To)
		rc := lane.Cost + pi[u] - pi[v]
		if rc >= eps || inCore[l] {
			continue // most lanes: no improvement
		}
		if rc < violation[u] {
			violation[u], violator[u] = rc, int32(l)
		}
		if rc < violation[v] {
			violation[v], violator[v] = rc, int32(l)
		}
	}
	moved := false
	for _, l := range violator {
		if l >= 0 && !ns.inCore[l] {
			ns.inCore[l] = true
			ns.addLane(nu, l, lanes[l])
			moved = true
		}
	}
	return moved
}

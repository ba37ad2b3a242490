package flow

import (
	"fmt"
	"math"
)

// Lane is an uncapacitated arc of a transportation problem, from a supply
// to a demand, by their indexes.
type Lane struct {
	From, To int32
	Cost     float64
}

// Transport solves the transportation problem: supplies[i] units leave
// supply i and demands[j] units reach demand j, over the given lanes, at the
// least Σ flow × cost. It returns the flow on each lane and the total cost.
// The problem has no capacities, and without a source and a sink the
// simplex needs about a tenth of MinCostFlow's pivots for it; the lanes go
// straight into the simplex, without a Network's residual twins to build
// and copy, and pricing starts on each end's cheapest lanes (core.go).
// Supplies and demands must be finite, non-negative and
// sum to the same total; costs must be non-negative; ErrInfeasible means the
// lanes cannot carry every supply.
func Transport(supplies, demands []float64, lanes []Lane) (flows []float64, cost float64, err error) {
	flows = make([]float64, len(lanes))
	cost, err = TransportInto(flows, supplies, demands, lanes)
	if err != nil {
		return nil, 0, err
	}
	return flows, cost, nil
}

// TransportInto is Transport writing the flows into flows, which must have
// one element per lane; a caller solving many problems reuses one array.
// On an error flows holds nothing meaningful.
func TransportInto(flows, supplies, demands []float64, lanes []Lane) (cost float64, err error) {
	return TransportFrom(flows, nil, supplies, demands, lanes)
}

// TransportFrom is TransportInto starting from a previous answer: the
// flow each lane carried in a similar problem (one element per lane, as
// TransportInto wrote it). A periodic cycle's problem differs from the last
// one by a little traffic, and its optimum by a few lanes, so the simplex
// prices the lanes the previous answer used first, instead of each end's
// cheapest (core.go): a hundred or two lanes where the cheapest are
// sixteen hundred on a 100 × 100 problem, and nearly the optimum's. The
// pass over every lane that ends each solve still brings in whatever the
// new optimum needs, so the answer is an optimum all the same: the same
// cost as TransportInto's to rounding, and the same flows when the optimum
// is unique; among tied optima it keeps to the previous one's lanes.
// previous may be nil (a cold start); values that are not positive mark
// lanes that carried nothing.
func TransportFrom(flows, previous, supplies, demands []float64, lanes []Lane) (cost float64, err error) {
	if len(flows) != len(lanes) {
		return 0, fmt.Errorf("%d flows for %d lanes", len(flows), len(lanes))
	}
	if previous != nil && len(previous) != len(lanes) {
		return 0, fmt.Errorf("%d previous flows for %d lanes", len(previous), len(lanes))
	}
	nu, nv := len(supplies), len(demands)
	scale, sum := 0.0, 0.0
	for i, b := range supplies {
		if !(b >= 0) || math.IsInf(b, 1) {
			return 0, fmt.Errorf("supply %d is %v, not a finite number ≥ 0", i, b)
		}
		sum += b
		scale += b
	}
	for j, d := range demands {
		if !(d >= 0) || math.IsInf(d, 1) {
			return 0, fmt.Errorf("demand %d is %v, not a finite number ≥ 0", j, d)
		}
		sum -= d
		scale += d
	}
	if math.Abs(sum) > feasibilityTolerance*max(1, scale) {
		return 0, fmt.Errorf("supplies and demands differ by %v", sum)
	}
	ns := workspaces.Get().(*simplex)
	defer ns.release()
	ns.size(nu+nv, len(lanes))
	if err := ns.loadLanes(nu, lanes, previous); err != nil {
		return 0, err
	}
	if err := checkCostRange(ns.maxCost, ns.n); err != nil {
		return 0, err
	}
	balance := append(ns.balance[:0], supplies...)
	for _, d := range demands {
		balance = append(balance, -d)
	}
	ns.balance = balance
	ns.start(balance)
	ns.crash(balance)
	ns.solve()
	for ns.priceRest(nu, lanes) {
		ns.solve()
	}
	if ns.infeasible(scale / 2) {
		return 0, ErrInfeasible
	}
	clear(flows)
	for k := range ns.priced {
		flows[ns.laneOf[k]] = max(ns.flow[k], 0)
	}
	// Summed in lane order, so the cost does not depend on which lanes
	// the core held.
	for k, l := range lanes {
		cost += flows[k] * l.Cost
	}
	return cost, nil
}

package ntam

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/flow"
)

// Config tunes the slow-link filter.
type Config struct {
	// DisableFilter keeps every link (the filter's ablation).
	DisableFilter bool
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config { return Config{} }

// Problem is one downstream component's routing problem.
type Problem struct {
	// Supplies are the upstream nodes' parts of the traffic, summing to 1.
	Supplies []traffic.Amount
	// Demands are the downstream groups' shares, summing to 1.
	Demands []traffic.Amount
	// Delay returns the measured delay from Supplies[i]'s node to
	// Demands[j]'s, and false when that link is unmeasured.
	Delay func(i, j int) (float64, bool)
	// Delays, when not nil, holds the same for every link at once and
	// Delay is not called: Delays[i×len(Demands)+j], NaN where unmeasured
	// (traffic.Index.DelayMatrix writes it).
	Delays []float64
}

// Solution is the routing for one downstream component.
type Solution struct {
	// Sources holds each upstream node's fractions per downstream node.
	Sources []traffic.Source
	// SlowLinks are the links k-means classified slow; RemovedLinks the
	// ones dropped while every group's share stayed deliverable.
	SlowLinks, RemovedLinks []traffic.Link
	// Cost is Σ flow × delay in milliseconds.
	Cost float64
	// Notes explain estimates and fallbacks.
	Notes []string
}

type link struct {
	u, v      int32 // indexes into supplies and demands
	delay     float64
	estimated bool
	local     bool // both ends on one node: never slow
}

const tolerance = 1e-9

// Solve filters slow links and routes the supplies to the demands at the
// least Σ traffic × delay.
func Solve(cfg Config, p Problem) (Solution, error) {
	if err := checkAmounts("supplies", p.Supplies); err != nil {
		return Solution{}, err
	}
	if err := checkAmounts("demands", p.Demands); err != nil {
		return Solution{}, err
	}
	if p.Delays != nil && len(p.Delays) != len(p.Supplies)*len(p.Demands) {
		return Solution{}, &traffic.FieldError{Field: "delays", Value: len(p.Delays), Reason: fmt.Sprintf("must hold %d × %d links", len(p.Supplies), len(p.Demands))}
	}
	if p.Delays == nil && p.Delay == nil {
		return Solution{}, &traffic.FieldError{Field: "delay", Value: "nil", Reason: "a problem needs Delay or Delays"}
	}
	ws := scratches.Get().(*scratch)
	defer scratches.Put(ws)
	var sol Solution
	links := ws.buildLinks(p, &sol)
	if cfg.DisableFilter {
		if err := ws.route(p, links, nil, &sol); err != nil {
			return Solution{}, err
		}
		return sol, nil
	}

	slow := ws.slowLinks(p, links, &sol)
	// Removing links can only lower the maximum flow, so when the traffic
	// can be routed without every slow link, both of HEART's rules (all
	// together when few, one at a time otherwise) remove them all, and that
	// routing is the answer. Infeasibility is rare, and only then does the
	// filter run its max-flow checks.
	removed := len(slow)
	err := ws.route(p, links, ws.dropMask(len(links), slow), &sol)
	if errors.Is(err, flow.ErrInfeasible) {
		removed = largestRemovable(p, links, slow)
		if removed < len(slow) {
			sol.Notes = append(sol.Notes, fmt.Sprintf("kept %d slow links: removing the next would leave a group's share undeliverable", len(slow)-removed))
		}
		err = ws.route(p, links, ws.dropMask(len(links), slow[:removed]), &sol)
	}
	if err != nil {
		return Solution{}, err
	}
	if removed > 0 {
		// SlowLinks lists slow in order, so the removed ones are its first.
		sol.RemovedLinks = sol.SlowLinks[:removed:removed]
	}
	return sol, nil
}

// scratch holds one solve's working arrays for the next: a fleet's cycle
// solves a problem of ten thousand links per component, and allocating
// them afresh each time made the garbage collector a fifth of the cycle.
// Nothing in a Solution points into it.
type scratch struct {
	links    []link
	delays   []float64
	slow     []int
	dropped  []bool
	lanes    []flow.Lane
	amounts  []float64
	flows    []float64
	twoMeans twoMeansScratch
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// grow returns s with length n, reusing its array when it can; the
// elements are left as they were.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func checkAmounts(field string, as []traffic.Amount) error {
	if len(as) == 0 {
		return &traffic.FieldError{Field: field, Value: "[]", Reason: "must not be empty"}
	}
	sum := 0.0
	for i, a := range as {
		if math.IsNaN(a.Value) || math.IsInf(a.Value, 0) || a.Value < 0 {
			return &traffic.FieldError{Field: fmt.Sprintf("%s[%d].value", field, i), Value: a.Value, Reason: "must be a finite number ≥ 0"}
		}
		sum += a.Value
	}
	if math.Abs(sum-1) > 1e-6 {
		return &traffic.FieldError{Field: field, Value: sum, Reason: "must sum to 1"}
	}
	return nil
}

// buildLinks makes every upstream–downstream link. An unmeasured same-node
// link costs 0; an unmeasured inter-node link costs the largest measured inter-node delay, so it is used
// only when nothing better is left (with no measurement at all, inter-node
// links cost 1 ms and local ones 0).
func (ws *scratch) buildLinks(p Problem, sol *Solution) []link {
	links := ws.links[:0]
	worst, anyKnown, estimated := 0.0, false, 0
	nv := len(p.Demands)
	for i, s := range p.Supplies {
		var row []float64
		if p.Delays != nil {
			row = p.Delays[i*nv : (i+1)*nv]
		}
		for j, d := range p.Demands {
			var ms float64
			var ok bool
			if row != nil {
				ms = row[j]
				ok = !math.IsNaN(ms)
			} else {
				ms, ok = p.Delay(i, j)
			}
			if !ok && s.Node == d.Node {
				ms, ok = 0, true // same node: no network hop
			}
			if ok && s.Node != d.Node {
				worst, anyKnown = math.Max(worst, ms), true
			}
			if !ok {
				estimated++
			}
			links = append(links, link{u: int32(i), v: int32(j), delay: ms, estimated: !ok, local: s.Node == d.Node})
		}
	}
	if !anyKnown {
		worst = 1
	}
	ws.links = links
	if estimated > 0 {
		for k := range links {
			if links[k].estimated {
				links[k].delay = worst
			}
		}
		sol.Notes = append(sol.Notes, fmt.Sprintf("%d links have no measured delay and cost the worst measured delay, %.3g ms", estimated, worst))
	}
	return links
}

// slowLinks classifies the inter-node links by two-means on their delays
// and returns the slow cluster's indexes into links, slowest first (ties in
// link order), recording them in the solution.
func (ws *scratch) slowLinks(p Problem, links []link, sol *Solution) []int {
	interDelays := ws.delays[:0]
	for _, l := range links {
		if !l.local {
			interDelays = append(interDelays, l.delay)
		}
	}
	ws.delays = interDelays
	cut, ok := ws.twoMeans.split(interDelays)
	if !ok {
		return nil
	}
	slow := ws.slow[:0]
	for i, l := range links {
		if !l.local && l.delay >= cut {
			slow = append(slow, i)
		}
	}
	ws.slow = slow
	slices.SortFunc(slow, func(a, b int) int {
		if c := cmp.Compare(links[b].delay, links[a].delay); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sol.SlowLinks = make([]traffic.Link, 0, len(slow))
	for _, i := range slow {
		sol.SlowLinks = append(sol.SlowLinks, asLink(p, links[i]))
	}
	return slow
}

// dropMask marks the n links indexed by drop; nil when none is.
func (ws *scratch) dropMask(n int, drop []int) []bool {
	if len(drop) == 0 {
		return nil
	}
	dropped := grow(ws.dropped, n)
	clear(dropped)
	ws.dropped = dropped
	for _, i := range drop {
		dropped[i] = true
	}
	return dropped
}

// largestRemovable removes slow links one at a time from the slowest,
// stopping before the first removal that would leave some share
// undeliverable, and returns how many went. Links of equal delay go
// together or not at all: nothing orders them (unmeasured links all cost
// the worst measured delay, for one), and removing some of them by their
// place in a list would be arbitrary. The largest feasible prefix is found
// by binary search over max-flow checks on one network (a removed link
// gets capacity 0): the same answer in O(log n) checks.
func largestRemovable(p Problem, links []link, slow []int) int {
	check := newFeasibility(p, links)
	feasibleWithout := func(k int) bool {
		for i, id := range slow {
			if i < k {
				check.g.SetCapacity(check.arcs[id], 0)
			} else {
				check.g.SetCapacity(check.arcs[id], flow.Inf)
			}
		}
		return check.feasible()
	}
	// The prefixes that end between two different delays.
	cuts := []int{0}
	for k := 1; k <= len(slow); k++ {
		if k == len(slow) || links[slow[k]].delay != links[slow[k-1]].delay {
			cuts = append(cuts, k)
		}
	}
	lo, hi := 0, len(cuts)-1 // cuts[lo] is feasible
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if feasibleWithout(cuts[mid]) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cuts[lo]
}

func asLink(p Problem, l link) traffic.Link {
	return traffic.Link{From: p.Supplies[l.u].Node, To: p.Demands[l.v].Node, DelayMs: l.delay}
}

// feasibility is the max-flow check, source → upstream → downstream →
// sink: can the links carry all the traffic?
type feasibility struct {
	g          *flow.Network
	s, t       int
	arcs       []int // links' arc ids
	supplyFlow float64
}

func newFeasibility(p Problem, links []link) *feasibility {
	nu, nv := len(p.Supplies), len(p.Demands)
	f := &feasibility{g: flow.NewNetworkSized(nu+nv+2, nu+nv+len(links)), s: nu + nv, t: nu + nv + 1, supplyFlow: total(p.Supplies)}
	for i, a := range p.Supplies {
		f.g.AddArc(f.s, i, a.Value, 0)
	}
	for j, a := range p.Demands {
		f.g.AddArc(nu+j, f.t, a.Value, 0)
	}
	f.arcs = make([]int, len(links))
	for k, l := range links {
		f.arcs[k] = f.g.AddArc(int(l.u), nu+int(l.v), flow.Inf, l.delay)
	}
	return f
}

func (f *feasibility) feasible() bool {
	f.g.Reset()
	return f.g.MaxFlow(f.s, f.t) >= f.supplyFlow-tolerance
}

func total(as []traffic.Amount) float64 {
	sum := 0.0
	for _, a := range as {
		sum += a.Value
	}
	return sum
}

// route solves the min-cost flow over the links not dropped (dropped may
// be nil) and turns it into per-source fractions. It is a transportation
// problem (supplies straight to demands); demands are scaled to the
// supplies' total, which checkAmounts has held to 1 within rounding.
func (ws *scratch) route(p Problem, links []link, dropped []bool, sol *Solution) error {
	lanes := ws.lanes[:0]
	for k, l := range links {
		if dropped == nil || !dropped[k] {
			lanes = append(lanes, flow.Lane{From: l.u, To: l.v, Cost: l.delay})
		}
	}
	ws.lanes = lanes
	ws.amounts = grow(ws.amounts, len(p.Supplies)+len(p.Demands))
	supplies, demands := ws.amounts[:len(p.Supplies)], ws.amounts[len(p.Supplies):]
	scale := total(p.Supplies) / total(p.Demands)
	for i, a := range p.Supplies {
		supplies[i] = a.Value
	}
	for j, a := range p.Demands {
		demands[j] = a.Value * scale
	}
	ws.flows = grow(ws.flows, len(lanes))
	flows := ws.flows
	cost, err := flow.TransportInto(flows, supplies, demands, lanes)
	if errors.Is(err, flow.ErrInfeasible) {
		return fmt.Errorf("route: %w", err)
	}
	if err != nil {
		return err
	}
	sol.Cost = cost
	to := make([][]traffic.Amount, len(p.Supplies))
	for k, l := range lanes {
		if f := flows[k]; f > tolerance {
			to[l.From] = append(to[l.From], traffic.Amount{Node: p.Demands[l.To].Node, Value: f})
		}
	}
	for i, a := range p.Supplies {
		src := traffic.Source{Node: a.Node, Supply: a.Value, To: traffic.Normalize(to[i])}
		if src.To == nil {
			continue // a zero supply sends nothing
		}
		sol.Sources = append(sol.Sources, src)
	}
	return nil
}

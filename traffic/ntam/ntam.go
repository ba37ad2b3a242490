package ntam

import (
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
	// Delays holds the measured delay from Supplies[i]'s node to
	// Demands[j]'s at Delays[i×len(Demands)+j], NaN where that link is
	// unmeasured (traffic.Index.DelayMatrix writes it).
	Delays []float64
	// Previous, when not nil, is the routing of a similar problem, the last
	// cycle's for the same component: the min-cost flow starts by pricing
	// the links it used (flow.TransportFrom). It changes how fast the
	// answer comes, and which one comes among equally cheap routings,
	// never the cost of the answer.
	Previous []traffic.Source
}

// Solution is the routing for one downstream component.
type Solution struct {
	// Sources holds each upstream node's fractions per downstream node.
	Sources []traffic.Source
	// SlowLinks counts the links k-means classified slow; RemovedLinks
	// those dropped while every group's share stayed deliverable: all of
	// them, or, when some had to stay, all but the fastest the traffic
	// needs, the slow links of delays up to KeptSlowUpToMs (0 when none
	// stayed). Counts and a bound rather than lists: in a cluster of zones
	// the slow links are the thousands between zones, often thousands of
	// them stay, and listing them for every component every cycle was most
	// of a cycle's allocation.
	SlowLinks, RemovedLinks int
	KeptSlowUpToMs          float64
	// Cost is Σ flow × delay in milliseconds.
	Cost float64
	// Notes explain estimates and fallbacks.
	Notes []string
}

// links are a problem's supply × demand pairs, link k joining supply
// k / nv to demand k mod nv, held as arrays rather than a struct per link:
// the filter and the lanes read them in passes, ten thousand links per
// component on a fleet.
type links struct {
	nu, nv int
	// delay is each link's delay in ms; an unmeasured one costs what
	// buildLinks says.
	delay []float64
	// local is each supply's demand on its own node (never slow), −1 if
	// none.
	local []int32
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
	if len(p.Delays) != len(p.Supplies)*len(p.Demands) {
		return Solution{}, &traffic.FieldError{Field: "delays", Value: len(p.Delays), Reason: fmt.Sprintf("must hold %d × %d links", len(p.Supplies), len(p.Demands))}
	}
	ws := scratches.Get().(*scratch)
	defer scratches.Put(ws)
	var sol Solution
	links := ws.buildLinks(p, &sol)
	ws.markPrevious(p, links)
	if cfg.DisableFilter {
		if err := ws.route(p, links, nil, &sol); err != nil {
			return Solution{}, err
		}
		return sol, nil
	}

	slow := ws.slowLinks(p, links, &sol)
	// HEART removes the slow links all together when few, one at a time,
	// slowest first, otherwise, stopping before a removal that would leave a
	// group's share undeliverable. Removing links can only lower the maximum
	// flow, so both rules remove every slow link when the rest can carry the
	// traffic; otherwise the slow links that stay are the fastest ones, as
	// few as the traffic needs (keptUpTo). Where slow links are scattered
	// the fast ones nearly always carry the traffic, and routing over them
	// is the answer; in a cluster of zones, where the slow links are those
	// between zones, the zones joined by fast links alone do not balance,
	// and some slow links must stay every cycle, so routing without them
	// first would only fail.
	withoutSlow := ws.dropMask(len(links.delay), slow)
	if !ws.check.unbalancedWithout(p, links, withoutSlow) {
		err := ws.route(p, links, withoutSlow, &sol)
		if err == nil {
			sol.RemovedLinks = sol.SlowLinks
			return sol, nil
		}
		if !errors.Is(err, flow.ErrInfeasible) {
			return Solution{}, err
		}
	}
	kept := keptUpTo(&ws.check, p, links, slow)
	removed := ws.removed[:0]
	for _, k := range slow {
		if links.delay[k] > kept {
			removed = append(removed, k)
		}
	}
	ws.removed = removed
	sol.RemovedLinks = len(removed)
	if len(removed) < len(slow) {
		sol.KeptSlowUpToMs = kept
		sol.Notes = append(sol.Notes, fmt.Sprintf("kept %d slow links, up to %.3g ms: removing the next would leave a group's share undeliverable", len(slow)-len(removed), kept))
	}
	if err := ws.route(p, links, ws.dropMask(len(links.delay), removed), &sol); err != nil {
		return Solution{}, err
	}
	return sol, nil
}

// scratch holds one solve's working arrays for the next: a fleet's cycle
// solves a problem of ten thousand links per component, and allocating
// them afresh each time made the garbage collector a fifth of the cycle.
// Nothing in a Solution points into it.
type scratch struct {
	links    links
	demandAt map[string]int32
	supplyAt map[string]int32
	delays   []float64
	slow     []int
	removed  []int
	dropped  []bool
	lanes    []flow.Lane
	amounts  []float64
	flows    []float64
	// used is Problem.Previous's fraction on each link (nil without a
	// previous routing), and previous the same for each lane.
	used     []float64
	previous []float64
	twoMeans twoMeansScratch
	check    feasibility
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

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
// link costs 0; an unmeasured inter-node link costs the largest measured
// inter-node delay, so it is used only when nothing better is left (with
// no measurement at all, inter-node links cost 1 ms and local ones 0).
func (ws *scratch) buildLinks(p Problem, sol *Solution) *links {
	nu, nv := len(p.Supplies), len(p.Demands)
	ls := &ws.links
	ls.nu, ls.nv = nu, nv
	ls.delay = append(ls.delay[:0], p.Delays...)
	if ws.demandAt == nil {
		ws.demandAt = make(map[string]int32)
	}
	clear(ws.demandAt)
	for j, d := range p.Demands {
		ws.demandAt[d.Node] = int32(j)
	}
	ls.local = slices.Grow(ls.local[:0], nu)[:nu]
	for i, s := range p.Supplies {
		ls.local[i] = -1
		if j, ok := ws.demandAt[s.Node]; ok {
			ls.local[i] = j
		}
	}
	worst, anyKnown, estimated := 0.0, false, 0
	for i := range nu {
		row, local := ls.delay[i*nv:(i+1)*nv], int(ls.local[i])
		for j, d := range row {
			switch {
			case j == local:
				if math.IsNaN(d) {
					row[j] = 0 // same node: no network hop
				}
			case math.IsNaN(d):
				estimated++
			default:
				worst, anyKnown = max(worst, d), true
			}
		}
	}
	if !anyKnown {
		worst = 1
	}
	if estimated > 0 {
		for k, d := range ls.delay {
			if math.IsNaN(d) {
				ls.delay[k] = worst
			}
		}
		sol.Notes = append(sol.Notes, fmt.Sprintf("%d links have no measured delay and cost the worst measured delay, %.3g ms", estimated, worst))
	}
	return ls
}

// slowLinks classifies the inter-node links by two-means on their delays
// and returns the slow cluster's link numbers in link order, recording
// them in the solution.
func (ws *scratch) slowLinks(p Problem, ls *links, sol *Solution) []int {
	nv := ls.nv
	interDelays := ws.delays[:0]
	for i := range ls.nu {
		row, local := ls.delay[i*nv:(i+1)*nv], int(ls.local[i])
		if local < 0 {
			interDelays = append(interDelays, row...)
			continue
		}
		interDelays = append(interDelays, row[:local]...)
		interDelays = append(interDelays, row[local+1:]...)
	}
	ws.delays = interDelays
	cut, ok := ws.twoMeans.split(interDelays)
	if !ok {
		return nil
	}
	slow := ws.slow[:0]
	for i := range ls.nu {
		row, local := ls.delay[i*nv:(i+1)*nv], int(ls.local[i])
		for j, d := range row {
			if d >= cut && j != local {
				slow = append(slow, i*nv+j)
			}
		}
	}
	ws.slow = slow
	sol.SlowLinks = len(slow)
	return slow
}

// dropMask marks the n links indexed by drop; nil when none is.
func (ws *scratch) dropMask(n int, drop []int) []bool {
	if len(drop) == 0 {
		return nil
	}
	dropped := zeroed(ws.dropped, n)
	ws.dropped = dropped
	for _, i := range drop {
		dropped[i] = true
	}
	return dropped
}

// demandScale is what the demands are multiplied by to sum to the
// supplies' total exactly (checkAmounts holds both to 1 within rounding), so
// a routing can deliver them all.
func demandScale(p Problem) float64 { return total(p.Supplies) / total(p.Demands) }

// zeroed returns s with length n and every element zero, reusing its array
// when it can: the solver's working arrays live from one problem to the
// next.
func zeroed[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
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
func (ws *scratch) route(p Problem, links *links, dropped []bool, sol *Solution) error {
	lanes := ws.lanes[:0]
	nv := links.nv
	for i := range links.nu {
		for j, d := range links.delay[i*nv : (i+1)*nv] {
			if dropped == nil || !dropped[i*nv+j] {
				lanes = append(lanes, flow.Lane{From: int32(i), To: int32(j), Cost: d})
			}
		}
	}
	ws.lanes = lanes
	amounts := ws.amounts[:0]
	for _, a := range p.Supplies {
		amounts = append(amounts, a.Value)
	}
	scale := demandScale(p)
	for _, a := range p.Demands {
		amounts = append(amounts, a.Value*scale)
	}
	ws.amounts = amounts
	supplies, demands := amounts[:len(p.Supplies)], amounts[len(p.Supplies):]
	ws.flows = slices.Grow(ws.flows[:0], len(lanes))[:len(lanes)]
	flows := ws.flows
	cost, err := flow.TransportFrom(flows, ws.previousLanes(links, lanes), supplies, demands, lanes)
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

// markPrevious records, once per solve, the fraction p.Previous sent over
// each link (ws.used; nil when there is no previous routing). Nodes that
// are no longer a supply or a demand are passed over.
func (ws *scratch) markPrevious(p Problem, links *links) {
	if p.Previous == nil {
		ws.used = nil
		return
	}
	nv := links.nv
	n := links.nu * nv
	ws.used = zeroed(ws.used, n)
	if ws.supplyAt == nil {
		ws.supplyAt = make(map[string]int32)
	}
	clear(ws.supplyAt)
	for i, a := range p.Supplies {
		ws.supplyAt[a.Node] = int32(i)
	}
	for _, src := range p.Previous {
		i, ok := ws.supplyAt[src.Node]
		if !ok {
			continue
		}
		for _, to := range src.To {
			if j, ok := ws.demandAt[to.Node]; ok {
				ws.used[int(i)*nv+int(j)] = to.Value
			}
		}
	}
}

// previousLanes is ws.used for each lane, or nil without a previous
// routing.
func (ws *scratch) previousLanes(links *links, lanes []flow.Lane) []float64 {
	if ws.used == nil {
		return nil
	}
	previous := ws.previous[:0]
	for _, l := range lanes {
		previous = append(previous, ws.used[int(l.From)*links.nv+int(l.To)])
	}
	ws.previous = previous
	return previous
}

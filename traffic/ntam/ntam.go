package ntam

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

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
	// Delay returns the measured delay of a link.
	Delay func(from, to string) (float64, bool)
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
	u, v      int // indexes into supplies and demands
	delay     float64
	estimated bool
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
	var sol Solution
	links := buildLinks(p, &sol)

	kept := links
	if !cfg.DisableFilter {
		kept = filterSlow(cfg, p, links, &sol)
	}
	if err := route(p, kept, &sol); err != nil {
		return Solution{}, err
	}
	return sol, nil
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
func buildLinks(p Problem, sol *Solution) []link {
	worst, anyKnown := 0.0, false
	for _, s := range p.Supplies {
		for _, d := range p.Demands {
			if ms, ok := p.Delay(s.Node, d.Node); ok && s.Node != d.Node {
				worst, anyKnown = math.Max(worst, ms), true
			}
		}
	}
	if !anyKnown {
		worst = 1
	}
	var links []link
	estimated := 0
	for i, s := range p.Supplies {
		for j, d := range p.Demands {
			ms, ok := p.Delay(s.Node, d.Node)
			if !ok && s.Node == d.Node {
				ms, ok = 0, true // same node: no network hop
			}
			if !ok {
				ms = worst
				estimated++
			}
			links = append(links, link{u: i, v: j, delay: ms, estimated: !ok})
		}
	}
	if estimated > 0 {
		sol.Notes = append(sol.Notes, fmt.Sprintf("%d links have no measured delay and cost the worst measured delay, %.3g ms", estimated, worst))
	}
	return links
}

// filterSlow removes slow links while the rest still carry every share.
func filterSlow(cfg Config, p Problem, links []link, sol *Solution) []link {
	var interDelays []float64
	for _, l := range links {
		if p.Supplies[l.u].Node != p.Demands[l.v].Node {
			interDelays = append(interDelays, l.delay)
		}
	}
	cut, ok := splitTwoMeans(interDelays)
	if !ok {
		return links
	}
	var slow []int // indexes into links, slowest first
	for i, l := range links {
		if p.Supplies[l.u].Node != p.Demands[l.v].Node && l.delay >= cut {
			slow = append(slow, i)
		}
	}
	slices.SortStableFunc(slow, func(a, b int) int { return cmp.Compare(links[b].delay, links[a].delay) })
	for _, i := range slow {
		sol.SlowLinks = append(sol.SlowLinks, asLink(p, links[i]))
	}

	without := func(k int) []link {
		drop := make(map[int]bool, k)
		for _, i := range slow[:k] {
			drop[i] = true
		}
		out := make([]link, 0, len(links)-k)
		for i, l := range links {
			if !drop[i] {
				out = append(out, l)
			}
		}
		return out
	}

	// Removing links can only lower the maximum flow, so when removing every
	// slow link leaves the traffic deliverable, both of HEART's rules (all
	// together when few, one at a time otherwise) remove them all.
	removed := 0
	if feasible(p, without(len(slow))) {
		removed = len(slow)
	} else {
		// One at a time from the slowest, stopping before the first removal
		// that would leave some share undeliverable. The largest feasible
		// prefix is found by binary search: the same answer, in O(log n)
		// checks. (Few slow links that cannot go together end up here too.)
		lo, hi := 0, len(slow) // prefix lo is feasible
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if feasible(p, without(mid)) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		removed = lo
		if removed < len(slow) {
			sol.Notes = append(sol.Notes, fmt.Sprintf("kept %d slow links: removing the next would leave a group's share undeliverable", len(slow)-removed))
		}
	}
	for _, i := range slow[:removed] {
		sol.RemovedLinks = append(sol.RemovedLinks, asLink(p, links[i]))
	}
	return without(removed)
}

func asLink(p Problem, l link) traffic.Link {
	return traffic.Link{From: p.Supplies[l.u].Node, To: p.Demands[l.v].Node, DelayMs: l.delay}
}

// network builds source → upstream → downstream → sink.
func network(p Problem, links []link) (g *flow.Network, s, t int, arcs []int) {
	nu, nv := len(p.Supplies), len(p.Demands)
	g = flow.NewNetworkSized(nu+nv+2, nu+nv+len(links))
	s, t = nu+nv, nu+nv+1
	for i, a := range p.Supplies {
		g.AddArc(s, i, a.Value, 0)
	}
	for j, a := range p.Demands {
		g.AddArc(nu+j, t, a.Value, 0)
	}
	arcs = make([]int, len(links))
	for k, l := range links {
		arcs[k] = g.AddArc(l.u, nu+l.v, flow.Inf, l.delay)
	}
	return g, s, t, arcs
}

// feasible is the max-flow check: can the links carry all the traffic?
func feasible(p Problem, links []link) bool {
	g, s, t, _ := network(p, links)
	return g.MaxFlow(s, t) >= total(p.Supplies)-tolerance
}

func total(as []traffic.Amount) float64 {
	sum := 0.0
	for _, a := range as {
		sum += a.Value
	}
	return sum
}

// route solves the min-cost flow and turns it into per-source fractions.
func route(p Problem, links []link, sol *Solution) error {
	g, s, t, arcs := network(p, links)
	amount := math.Min(total(p.Supplies), total(p.Demands))
	cost, err := g.MinCostFlow(s, t, amount)
	if errors.Is(err, flow.ErrInfeasible) {
		return fmt.Errorf("route: %w", err)
	}
	if err != nil {
		return err
	}
	sol.Cost = cost
	to := make([][]traffic.Amount, len(p.Supplies))
	for k, l := range links {
		if f := g.Flow(arcs[k]); f > tolerance {
			to[l.u] = append(to[l.u], traffic.Amount{Node: p.Demands[l.v].Node, Value: f})
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

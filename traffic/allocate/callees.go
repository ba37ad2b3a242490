package allocate

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/traffic"
)

// A caller's table freezes its callees' queues as well as its own. Where a
// callee D runs under a table, each of the caller C's nodes sends its calls
// to D along its own row, so the C pod a request reaches decides which of
// D's queues it joins. Left to least-request, C's callers pick the C pod
// with fewer requests in flight, and those counts hold every wait on D: a
// C pod whose row leads to a grown queue holds more, its callers' informed
// picks turn away from it, and D's queues are spread as if pooled. Under
// C's table the split over C's nodes is static, and so is the split over
// D's queues: each grows on its own, however long the others are.
//
// So C's table is priced with what D's table adds over D's pods pooled, in
// the part of D's traffic that C's choice of node moves (where C's nodes'
// rows differ), per call C makes to D, scaled by the callers' informed
// fraction as their own pooling is. The same counts are informed more often
// than C's own response says: a request holds its caller's count through
// its calls downstream too.
//
// Callees are judged before their callers, so that each caller reads its
// callees' verdicts of the same cycle; a cycle in the call graph is broken
// at one component, judged without what it calls inside the cycle.

// calleeLoad is what a component's callees add to each of its requests.
type calleeLoad struct {
	// heldSeconds is the mean time a request spends in calls to its
	// callees, holding its caller's count.
	heldSeconds float64
	// frozenSeconds is the mean response time per request that the
	// callees' tables add over their pods pooled, in the part that the
	// component's choice of node moves.
	frozenSeconds float64
}

// frozenMs is what a table at the component costs in its callees' queues,
// where its callers' picks are informed that often without it.
func (c calleeLoad) frozenMs(informed float64) float64 {
	if !(informed > 0 && c.frozenSeconds > 0) {
		return 0
	}
	return 1000 * informed * c.frozenSeconds
}

// judged is a component's verdict of this cycle as its callers read it.
type judged struct {
	// lambda is the request rate it serves, NaN when unknown.
	lambda float64
	// responseSeconds is its mean response under the verdict in force,
	// its own calls downstream included; NaN when unpriced.
	responseSeconds float64
	// unpooledSeconds is what its table adds over its pods pooled; 0 when
	// it is left to its callers' own picks or unpriced.
	unpooledSeconds float64
	// rows are its table's sources; nil without a table.
	rows []traffic.Source
}

// judgedOf is the verdict h on route r (before it is left to the callers)
// for the component's callers.
func judgedOf(h handover, r traffic.Route, groups []traffic.Group, below calleeLoad) judged {
	j := judged{lambda: requestRate(groups), responseSeconds: math.NaN()}
	switch {
	case h.why != "":
	case h.envoy:
		j.responseSeconds = h.prices.own + below.heldSeconds
	default:
		j.responseSeconds = h.prices.table + below.heldSeconds
		j.unpooledSeconds = math.Max(0, h.prices.table-h.prices.pooled)
		j.rows = r.Sources
	}
	return j
}

// calleesFirst orders components so that each comes after every callee
// among them; a cycle is broken at its first component in sorted order.
// The order does not depend on the input's.
func calleesFirst(x *traffic.Index, components []string) []string {
	pending := make(map[string]bool, len(components))
	for _, c := range components {
		pending[c] = true
	}
	sorted := slices.Sorted(slices.Values(components))
	order := make([]string, 0, len(components))
	for len(pending) > 0 {
		var ready []string
		for _, c := range sorted {
			if pending[c] && !slices.ContainsFunc(x.Callees(c), func(d string) bool { return pending[d] }) {
				ready = append(ready, c)
			}
		}
		if len(ready) == 0 {
			// Every pending component waits on another: some wait in a
			// cycle. Its first goes alone, judged without the rest of it.
			ready = []string{firstOnCycle(x, sorted, pending)}
		}
		for _, c := range ready {
			delete(pending, c)
		}
		order = append(order, ready...)
	}
	return order
}

// firstOnCycle is the first of sorted that is pending and reaches itself
// through pending callees. There is one whenever every pending component
// has a pending callee: following callees must come back somewhere.
func firstOnCycle(x *traffic.Index, sorted []string, pending map[string]bool) string {
	first := ""
	for _, c := range sorted {
		if !pending[c] {
			continue
		}
		if first == "" {
			first = c
		}
		if reaches(x, c, c, pending, map[string]bool{}) {
			return c
		}
	}
	return first // unreachable while the graph is as read; any order is safe
}

// reaches reports whether target is a pending callee of from, at any depth.
func reaches(x *traffic.Index, from, target string, pending, seen map[string]bool) bool {
	for _, d := range x.Callees(from) {
		if !pending[d] || seen[d] {
			continue
		}
		if d == target {
			return true
		}
		seen[d] = true
		if reaches(x, d, target, pending, seen) {
			return true
		}
	}
	return false
}

// calleeLoadOf sums what the callees judged so far add to each request of
// component, whose groups are given.
func calleeLoadOf(x *traffic.Index, component string, groups []traffic.Group, done map[string]judged) calleeLoad {
	var load calleeLoad
	lambda := requestRate(groups)
	nodes := make(map[string]bool, len(groups))
	for _, grp := range groups {
		nodes[grp.Node] = true
	}
	for _, d := range x.Callees(component) {
		j, ok := done[d]
		if !ok {
			continue
		}
		calls := callsPerRequest(x, component, d, lambda, j.lambda)
		if !(calls > 0) || math.IsNaN(j.responseSeconds) {
			continue
		}
		load.heldSeconds += calls * j.responseSeconds
		if s := steerable(j.rows, nodes); s > 0 && j.unpooledSeconds > 0 {
			load.frozenSeconds += calls * s * j.unpooledSeconds
		}
	}
	return load
}

// callsPerRequest is how many calls to callee one request of caller makes:
// the callee's requests, the caller's part of them as Index.Supplies
// weighs its callers, over the caller's requests. 0 when a rate it needs
// is unknown.
func callsPerRequest(x *traffic.Index, caller, callee string, callerRate, calleeRate float64) float64 {
	if !(callerRate > 0 && calleeRate > 0) {
		return 0
	}
	return calleeRate * x.CallerShare(caller, callee) / callerRate
}

// steerable is the part of a table's traffic whose destination depends on
// which of the given caller nodes sent it: 1 − Σ over destinations of the
// least any of their rows sends there. Rows alike, or one caller node,
// steer nothing.
func steerable(rows []traffic.Source, nodes map[string]bool) float64 {
	var common []traffic.Amount // the least each destination gets, over the rows so far
	seen := 0
	for _, src := range rows {
		if !nodes[src.Node] {
			continue
		}
		seen++
		if common == nil {
			common = slices.Clone(src.To)
			continue
		}
		for i, c := range common {
			common[i].Value = math.Min(c.Value, sentTo(src.To, c.Node))
		}
	}
	if seen < 2 {
		return 0
	}
	shared := 0.0
	for _, c := range common { // in the row's node order: the same sum every run
		shared += c.Value
	}
	return math.Max(0, 1-shared)
}

// sentTo is the fraction a row sends to node (0 when none). Rows list a
// few destinations, so a scan beats an index.
func sentTo(to []traffic.Amount, node string) float64 {
	for _, t := range to {
		if t.Node == node {
			return t.Value
		}
	}
	return 0
}

// requestRate is the requests per second the groups serve, NaN when a
// replica's count is unknown.
func requestRate(groups []traffic.Group) float64 {
	lambda := 0.0
	for _, g := range groups {
		for _, r := range g.Replicas {
			lambda += r.Requests
		}
	}
	return lambda
}

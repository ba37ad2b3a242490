package traffic

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/graph"
)

// Group is the serving replicas of one component on one node: ready pods on
// a Ready node. HEART allocates traffic between groups, not pods.
type Group struct {
	Component, Node string
	Replicas        []Replica
}

// CostPerRequest is the group's CPU seconds per request: Σ CPU ÷ Σ requests
// over the replicas that served requests and whose CPU is known (HEART's
// rule: an idle replica says nothing about what a request costs). ok is
// false when no replica qualifies or the cost is not positive.
func (g Group) CostPerRequest() (cost float64, ok bool) {
	cpu, requests := g.costBasis()
	if requests <= 0 || cpu <= 0 {
		return 0, false
	}
	return cpu / requests, true
}

// Limit is the CPU the group's replicas may use together, in cores
// (Replica.Limit each).
func (g Group) Limit() float64 {
	sum := 0.0
	for _, r := range g.Replicas {
		sum += r.Limit()
	}
	return sum
}

// CostRate is the request rate CostPerRequest is measured over: the
// replicas' that qualify (0 when none does).
func (g Group) CostRate() float64 {
	_, requests := g.costBasis()
	return requests
}

// costBasis sums CPU and request rate over the replicas that served
// requests and whose CPU is known.
func (g Group) costBasis() (cpu, requests float64) {
	for _, r := range g.Replicas {
		if r.Requests > 0 && !math.IsNaN(r.CPU) {
			cpu += r.CPU
			requests += r.Requests
		}
	}
	return cpu, requests
}

// Amount is a quantity attached to a node: a supply, a demand, a share.
type Amount struct {
	Node  string
	Value float64
}

// Index is a validated Snapshot with the lookups every allocator needs.
// Slices it returns are sorted by name, so results do not depend on map order.
type Index struct {
	Snapshot Snapshot

	nodes   map[string]Node
	delays  delayTable
	groups  map[string][]Group
	callsTo map[string][]graph.Call
	callees map[string][]string
	comps   []string
	picks   map[string]Pick
	// roundRobinUnderTable holds Component.RoundRobinUnderTable.
	roundRobinUnderTable map[string]bool
	replicas             map[string]Replica
}

// NewIndex validates s and indexes it.
func NewIndex(s Snapshot) (*Index, error) {
	if err := s.validateAllButDelays(); err != nil {
		return nil, err
	}
	// The delay table (a fleet measures a quarter of a million pairs) is
	// built beside the rest of the index.
	type built struct {
		table delayTable
		err   error
	}
	delaysBuilt := make(chan built, 1)
	go func() {
		t, err := newDelayTable(s.Nodes, s.Delays)
		delaysBuilt <- built{t, err}
	}()
	x := &Index{
		Snapshot:             s,
		nodes:                make(map[string]Node, len(s.Nodes)),
		groups:               make(map[string][]Group),
		callsTo:              make(map[string][]graph.Call),
		callees:              make(map[string][]string),
		picks:                make(map[string]Pick, len(s.Components)),
		roundRobinUnderTable: make(map[string]bool),
		replicas:             make(map[string]Replica, len(s.Replicas)),
	}
	for _, n := range s.Nodes {
		x.nodes[n.Name] = n
	}
	for _, c := range s.Components {
		x.comps = append(x.comps, c.Name)
		x.picks[c.Name] = c.Pick
		if c.RoundRobinUnderTable {
			x.roundRobinUnderTable[c.Name] = true
		}
	}
	slices.Sort(x.comps)
	for _, c := range s.Calls {
		x.callsTo[c.To] = append(x.callsTo[c.To], c)
		x.callees[c.From] = append(x.callees[c.From], c.To)
	}
	for from, to := range x.callees {
		slices.Sort(to)
		x.callees[from] = slices.Compact(to)
	}
	// Count each group first, so its replicas go into one allocation of
	// the right size instead of a slice grown replica by replica.
	size := make(map[[2]string]int)
	for _, r := range s.Replicas {
		x.replicas[r.Name] = r
		if r.Ready && x.nodes[r.Node].Ready {
			size[[2]string{r.Component, r.Node}]++
		}
	}
	byGroup := make(map[[2]string][]Replica, len(size))
	for k, n := range size {
		byGroup[k] = make([]Replica, 0, n)
	}
	for _, r := range s.Replicas {
		if r.Ready && x.nodes[r.Node].Ready {
			k := [2]string{r.Component, r.Node}
			byGroup[k] = append(byGroup[k], r)
		}
	}
	for k, rs := range byGroup {
		slices.SortFunc(rs, func(a, b Replica) int { return cmpString(a.Name, b.Name) })
		x.groups[k[0]] = append(x.groups[k[0]], Group{Component: k[0], Node: k[1], Replicas: rs})
	}
	for c := range x.groups {
		slices.SortFunc(x.groups[c], func(a, b Group) int { return cmpString(a.Node, b.Node) })
	}
	d := <-delaysBuilt
	if d.err != nil {
		return nil, d.err
	}
	x.delays = d.table
	return x, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Components returns every component name, sorted.
func (x *Index) Components() []string { return x.comps }

// Pick returns how a component's callers pick a pod without a table.
func (x *Index) Pick(component string) Pick { return x.picks[component] }

// TablePick returns how a component's callers pick a pod inside a locality
// while its table is in force.
func (x *Index) TablePick(component string) Pick {
	if x.roundRobinUnderTable[component] {
		return PickBlind
	}
	return x.picks[component]
}

// Groups returns the serving groups of a component, sorted by node.
func (x *Index) Groups(component string) []Group { return x.groups[component] }

// Replica returns a replica by name.
func (x *Index) Replica(name string) (Replica, bool) {
	r, ok := x.replicas[name]
	return r, ok
}

// Node returns a node by name.
func (x *Index) Node(name string) (Node, bool) {
	n, ok := x.nodes[name]
	return n, ok
}

// Delay returns the measured delay from one node to another. A node to
// itself is 0 ms unless measured.
func (x *Index) Delay(from, to string) (float64, bool) {
	return x.delays.lookup(x.delays.id(from), x.delays.id(to))
}

// DelayMatrix writes the delay from from[i] to to[j] at dst[i×len(to)+j],
// NaN where unmeasured (as Delay reports them), reusing dst's array when it
// is large enough: each name is resolved once, and the dense table is read
// a row at a time, the form NTAM's problems take for every link of every
// component each cycle.
func (x *Index) DelayMatrix(dst []float64, from, to []Amount) []float64 {
	n := len(from) * len(to)
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	toIDs := make([]int32, len(to))
	for j, a := range to {
		toIDs[j] = x.delays.id(a.Node)
	}
	for i, a := range from {
		x.delays.row(dst[i*len(to):(i+1)*len(to)], x.delays.id(a.Node), toIDs)
	}
	return dst
}

// Downstreams returns the components that are called by another, sorted.
func (x *Index) Downstreams() []string {
	var out []string
	for _, c := range x.comps {
		if len(x.callsTo[c]) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// CallsOut reports whether a component calls any other.
func (x *Index) CallsOut(component string) bool { return len(x.callees[component]) > 0 }

// Callees returns the components a component calls, sorted.
func (x *Index) Callees(component string) []string { return x.callees[component] }

// Upstreams returns the components calling a component, sorted.
func (x *Index) Upstreams(component string) []string {
	var out []string
	for _, c := range x.callsTo[component] {
		out = append(out, c.From)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Supplies returns, for a downstream component, how its incoming traffic is
// spread over upstream nodes, normalised to sum 1 (nil when no upstream
// replica serves). Each calling component contributes in proportion to its
// call rate (equally when any rate is unknown), spread over its groups in
// proportion to the requests they served (by replica count when unknown).
func (x *Index) Supplies(downstream string) []Amount {
	calls := x.callsTo[downstream]
	weights := callWeights(calls)
	supply := make(map[string]float64)
	for i, c := range calls {
		for _, a := range x.servedShares(c.From) {
			supply[a.Node] += weights[i] * a.Value
		}
	}
	return normalize(supply)
}

// CallerShare is the part of a downstream component's incoming traffic
// that upstream sends it, weighed as Supplies weighs its callers; 0 when
// upstream does not call it, or every weight is zero.
func (x *Index) CallerShare(upstream, downstream string) float64 {
	calls := x.callsTo[downstream]
	total, mine := 0.0, 0.0
	for i, w := range callWeights(calls) {
		total += w
		if calls[i].From == upstream {
			mine += w
		}
	}
	if !(total > 0) {
		return 0
	}
	return mine / total
}

// callWeights weighs each call by its measured rate, or every call alike
// when any rate is unknown.
func callWeights(calls []graph.Call) []float64 {
	rateKnown := true
	for _, c := range calls {
		if math.IsNaN(c.Rate) {
			rateKnown = false
		}
	}
	weights := make([]float64, len(calls))
	for i, c := range calls {
		weights[i] = 1
		if rateKnown {
			weights[i] = c.Rate
		}
	}
	return weights
}

// servedShares spreads a component over its groups in proportion to the
// requests each served, or by replica count when any count is unknown or all
// are zero; the result sums to 1 (nil without serving replicas).
func (x *Index) servedShares(component string) []Amount {
	groups := x.groups[component]
	byRequests := true
	total := 0.0
	for _, g := range groups {
		for _, r := range g.Replicas {
			if math.IsNaN(r.Requests) {
				byRequests = false
			}
			total += r.Requests
		}
	}
	if total <= 0 {
		byRequests = false
	}
	share := make(map[string]float64, len(groups))
	for _, g := range groups {
		for _, r := range g.Replicas {
			if byRequests {
				share[g.Node] += r.Requests
			} else {
				share[g.Node]++
			}
		}
	}
	return normalize(share)
}

// normalize turns a node → value map into Amounts summing to 1, sorted by
// node; nil when the total is not positive. It sums in node order, so the
// result does not depend on map iteration order, bit for bit.
func normalize(m map[string]float64) []Amount {
	out := make([]Amount, 0, len(m))
	for n, v := range m {
		if v > 0 {
			out = append(out, Amount{n, v})
		}
	}
	slices.SortFunc(out, func(a, b Amount) int { return cmpString(a.Node, b.Node) })
	return scaleToOne(out)
}

// scaleToOne divides amounts by their total, summed in their order; nil
// when the total is not a positive finite number.
func scaleToOne(as []Amount) []Amount {
	total := 0.0
	for _, a := range as {
		total += a.Value
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil
	}
	for i := range as {
		as[i].Value /= total
	}
	return as
}

// Normalize scales amounts to sum 1, dropping non-positive ones; nil when
// nothing is positive. Amounts for the same node are added, in input order,
// and the result is sorted by node, as normalize's; a stable sort and one
// merge pass do it without a map, since each of a cycle's thousands of
// sources holds only a few amounts.
func Normalize(as []Amount) []Amount {
	out := make([]Amount, 0, len(as))
	for _, a := range as {
		if a.Value > 0 && !math.IsInf(a.Value, 0) {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b Amount) int { return cmpString(a.Node, b.Node) })
	merged := out[:0]
	for _, a := range out {
		if n := len(merged); n > 0 && merged[n-1].Node == a.Node {
			merged[n-1].Value += a.Value
			continue
		}
		merged = append(merged, a)
	}
	return scaleToOne(merged)
}

package allocate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/forecast"
	"github.com/artt-dev/artt/traffic/health"
)

// ARTT is forecast-driven shares, adjusted by health, routed by NTAM.
type ARTT struct {
	opts     Options
	memo     *solutionMemo
	forecast *traffic.PerComponent[*forecast.ComponentEstimator]
	health   *traffic.PerComponent[*health.Tracker]
	handover *traffic.PerComponent[*handoverMemory]
	// The measurements the forecasts and the health trackers last learned
	// from: each learns from a measurement once, whichever call sees it.
	forecastMeasured, healthMeasured time.Time
	// last holds the health state and share of every group in the last
	// allocation returned, per component and node, so Protect can tell
	// whether anything changed.
	last map[string]map[string]traffic.GroupShare
	// seen is when each component was last in a snapshot (resume.go
	// forgets those gone for Options.ForgetAfter).
	seen map[string]time.Time
}

// NewARTT returns ARTT with empty estimates.
func NewARTT(opts Options) *ARTT {
	if opts.ForgetAfter <= 0 {
		opts.ForgetAfter = DefaultOptions().ForgetAfter
	}
	return &ARTT{
		opts:     opts,
		memo:     newSolutionMemo(),
		forecast: traffic.NewPerComponent(func() *forecast.ComponentEstimator { return forecast.NewComponent(opts.Forecast) }),
		health:   traffic.NewPerComponent(func() *health.Tracker { return health.New(opts.Health) }),
		handover: traffic.NewPerComponent(func() *handoverMemory { return new(handoverMemory) }),
		last:     make(map[string]map[string]traffic.GroupShare),
		seen:     make(map[string]time.Time),
	}
}

// Name is "artt".
func (*ARTT) Name() string { return "artt" }

// Allocate runs one ARTT cycle. Call it every cycle and again at once when
// a pod or node fails, with the same MeasuredAt when the measurements did not
// change: the groups are re-routed without learning from them twice.
func (a *ARTT) Allocate(s traffic.Snapshot) (traffic.Allocation, error) {
	alloc, _, err := a.allocate(s, rebalancing)
	return alloc, err
}

// Protect is the fast path between cycles: call it at every new
// measurement (the scrape interval). It folds the measurement into the
// groups' health only, and returns changed = true with a new allocation
// when a group's health state moved (a group to cut, or one to restore) or
// a group's share moved by more than protectChange (20%) as its health
// weight followed the measurements. Otherwise it routes nothing and returns
// an empty allocation.
// Forecasts neither learn nor shift here: rebalancing stays the cycle's, and
// its bounded steps do not hold back protection.
func (a *ARTT) Protect(s traffic.Snapshot) (traffic.Allocation, bool, error) {
	return a.allocate(s, protecting)
}

// purpose is what a call is for: a cycle rebalances, the fast path only
// protects.
type purpose int

const (
	rebalancing purpose = iota
	protecting
)

// pass is what one call does with its snapshot's measurements.
type pass struct {
	purpose purpose
	// learnForecasts is true on a cycle whose measurements the forecasts
	// have not learned from yet; learnHealth when the health trackers have
	// not. Each learns from a measurement once, whichever call sees it.
	learnForecasts, learnHealth bool
}

// passFor says what a call for purpose does with s, and marks its
// measurements learned.
func (a *ARTT) passFor(s traffic.Snapshot, purpose purpose) pass {
	isNew := func(last time.Time) bool { return s.MeasuredAt.IsZero() || !s.MeasuredAt.Equal(last) }
	p := pass{purpose: purpose, learnForecasts: purpose == rebalancing && isNew(a.forecastMeasured), learnHealth: isNew(a.healthMeasured)}
	if purpose == rebalancing {
		a.forecastMeasured = s.MeasuredAt
	}
	a.healthMeasured = s.MeasuredAt
	return p
}

// protectChange is the relative share change that makes Protect re-route
// although no health state changed: well above the rounding of Istio's
// integer weights, well below the cuts that matter.
const protectChange = 0.2

func (a *ARTT) allocate(s traffic.Snapshot, purpose purpose) (traffic.Allocation, bool, error) {
	x, err := traffic.NewIndex(s)
	if err != nil {
		return traffic.Allocation{}, false, err
	}
	this := a.passFor(s, purpose)
	if this.learnForecasts && !s.At.IsZero() {
		for _, component := range x.Downstreams() {
			a.seen[component] = s.At
		}
		a.forget(s.At.Add(-a.opts.ForgetAfter))
	}
	// Shares and health first, component by component (cheap); routing,
	// the min-cost flows, only when the allocation is wanted: every cycle,
	// and on the fast path only when something changed.
	plans := a.plan(x, s, this)
	changed := a.changed(plans)
	if purpose == protecting && !changed {
		return traffic.Allocation{Policy: "artt"}, false, nil
	}
	routes, failed := a.route(x, plans)
	for component, p := range plans {
		if slices.ContainsFunc(failed, func(f traffic.ComponentFailure) bool { return f.Component == component }) {
			continue // its last routing is still the one it has
		}
		now := make(map[string]traffic.GroupShare, len(p.route.Groups))
		for _, g := range p.route.Groups {
			now[g.Node] = g
		}
		a.last[component] = now
	}
	a.memo.forget(routed(routes))
	return traffic.Allocation{Policy: "artt", Routes: routes, Failed: failed}, changed, nil
}

// plan is one component's shares and health, before routing.
type plan struct {
	groups   []traffic.Group
	supplies []traffic.Amount
	route    traffic.Route // component, groups and notes, no sources yet
}

// plan estimates every component's shares and weighs them by health. Each
// component's estimator and tracker is fetched here, on one goroutine; the
// components are then planned in parallel, since none shares state with
// another.
func (a *ARTT) plan(x *traffic.Index, s traffic.Snapshot, this pass) map[string]plan {
	downs := x.Downstreams()
	estimators := make([]*forecast.ComponentEstimator, len(downs))
	trackers := make([]*health.Tracker, len(downs))
	for i, component := range downs {
		estimators[i], trackers[i] = a.forecast.Get(component), a.health.Get(component)
	}
	nodeUse := s.NodeUtilization()
	planned := make([]plan, len(downs))
	ok := make([]bool, len(downs))
	inParallel(len(downs), a.opts.Parallelism, func(i int) {
		component := downs[i]
		groups, supplies, has := problem(x, component)
		if !has {
			return
		}
		estimates := estimators[i].Estimate(groups, this.learnForecasts)
		shares := make([]float64, len(groups))
		for j, e := range estimates {
			shares[j] = e.Share
		}
		pass := healthPass{tracker: trackers[i], at: s.At, nodeUse: nodeUse, minWeight: a.opts.Health.MinWeight, judgeLatency: !x.CallsOut(component), learn: this.learnHealth}
		weighted, statuses, note := pass.apply(groups, shares)
		weighted, given := giveBack(groups, weighted, statuses)
		r := traffic.Route{Component: component}
		for _, n := range []string{note, given} {
			if n != "" {
				r.Notes = append(r.Notes, n)
			}
		}
		for j, g := range groups {
			r.Groups = append(r.Groups, traffic.GroupShare{
				Node: g.Node, Replicas: replicaNames(g), Share: weighted[j], Health: string(statuses[j].State), HealthWhy: statuses[j].Why,
				Basis: estimates[j].Basis, Forecasts: estimates[j].Forecasts,
			})
		}
		planned[i], ok[i] = plan{groups: groups, supplies: supplies, route: r}, true
	})
	plans := make(map[string]plan, len(downs))
	for i, component := range downs {
		if ok[i] {
			plans[component] = planned[i]
		}
	}
	return plans
}

// changed reports whether a group's health state moved, or its share by
// more than protectChange, against the routing last handed out
// (Allocate's, or a Protect that changed it), not against every Protect
// call, so slow drifts add up.
func (a *ARTT) changed(plans map[string]plan) bool {
	for component, p := range plans {
		prev := a.last[component]
		for _, g := range p.route.Groups {
			old, ok := prev[g.Node]
			if !ok || old.Health != g.Health || math.Abs(g.Share-old.Share) > protectChange*old.Share {
				return true
			}
		}
	}
	return false
}

// route routes every planned component by NTAM and decides, where the
// handover is on, whether its table or Envoy carries it. Routing and its
// prices run in parallel; the verdicts settle after, callees first.
func (a *ARTT) route(x *traffic.Index, plans map[string]plan) ([]traffic.Route, []traffic.ComponentFailure) {
	priced := make(map[string]*handover, len(plans))
	for component := range plans {
		priced[component] = new(handover)
	}
	routes, failed := eachDownstream(x, a.opts.Parallelism, func(x *traffic.Index, component string) (traffic.Route, bool, error) {
		p, ok := plans[component]
		if !ok {
			return traffic.Route{}, false, nil
		}
		demands := make([]traffic.Amount, len(p.groups))
		for i, g := range p.route.Groups {
			demands[i] = traffic.Amount{Node: g.Node, Value: g.Share}
		}
		r, ok, err := routeGroups(x, a.memo, p.route, p.groups, p.supplies, demands, a.opts.NTAM)
		if err == nil && ok && a.opts.LeaveToEnvoy {
			*priced[component] = judgeHandover(x, r, p.groups, p.supplies, callersOn(x, component))
		}
		return r, ok, err
	})
	if !a.opts.LeaveToEnvoy {
		return routes, failed
	}
	a.handOver(x, plans, routes, priced)
	return routes, failed
}

// handOver settles each route's verdict from its prices, callees before
// their callers (callees.go), and leaves to Envoy those it hands over.
func (a *ARTT) handOver(x *traffic.Index, plans map[string]plan, routes []traffic.Route, priced map[string]*handover) {
	at := make(map[string]int, len(routes))
	names := make([]string, len(routes))
	for i, r := range routes {
		at[r.Component], names[i] = i, r.Component
	}
	done := make(map[string]judged, len(routes))
	for _, component := range calleesFirst(x, names) {
		r, groups := &routes[at[component]], plans[component].groups
		below := calleeLoadOf(x, component, groups, done)
		h := a.handover.Get(component).settle(priced[component].withCallees(below))
		done[component] = judgedOf(h, *r, groups, below)
		r.Notes = append(r.Notes, h.note())
		if h.envoy {
			r.Envoy, r.Sources, r.SlowLinks, r.RemovedLinks, r.KeptSlowUpToMs, r.Cost = true, nil, 0, 0, 0, h.spreadCost
		}
	}
}

// healthPass is one pass of the health trackers over a component's groups.
type healthPass struct {
	tracker *health.Tracker
	at      time.Time
	// nodeUse is each node's CPU used by the snapshot's pods, as a
	// fraction of its allocatable CPU (Snapshot.NodeUtilization).
	nodeUse   map[string]float64
	minWeight float64
	// judgeLatency is true where latency is the group's own (components
	// that call no other): a caller's latency includes its downstream
	// calls, which locality routing makes differ per node, so it would
	// blame a caller for its callee and move traffic back and forth.
	// Errors, CPU per request and CPU waiting count everywhere.
	judgeLatency bool
	// learn is true when the snapshot's measurements are new to the
	// trackers; otherwise they report what they hold.
	learn bool
}

// apply observes each group's health and scales its share: Healthy × its
// weight (1, or less while it climbs back after a cut), Degraded ×
// max(MinWeight, score) but never below MinWeight × its fair
// (replica-count) share, Unhealthy 0. When every group is Unhealthy the
// shares are kept as they were: there is nowhere else to send the traffic.
func (h healthPass) apply(groups []traffic.Group, shares []float64) ([]float64, []health.Status, string) {
	tr := h.tracker
	fair := replicaCountShares(groups)
	out := make([]float64, len(groups))
	statuses := make([]health.Status, len(groups))
	p95s := make([]float64, len(groups))
	p95Rates := make([]float64, len(groups))
	errs := make([]float64, len(groups))
	costs := make([]float64, len(groups))
	changes := make([]float64, len(groups))
	stretches := make([]float64, len(groups))
	for i, g := range groups {
		p95s[i], p95Rates[i], errs[i] = groupHealthInputs(g, tr.BusyUtilization())
		if !h.judgeLatency {
			p95s[i] = math.NaN()
		}
		costs[i] = math.NaN()
		if c, ok := g.CostPerRequest(); ok {
			costs[i] = c
		}
		changes[i] = tr.CostChange(g.Node, costs[i])
		stretches[i] = h.stretch(g)
	}
	peerP95s, peerErrs, peerChanges, peerStretches := peerMedians(p95s), peerMedians(errs), peerMedians(changes), peerMedians(stretches)
	total := 0.0
	for i, g := range groups {
		obs := health.Observation{
			P95Ms: p95s[i], ErrorRate: errs[i], PeerP95Ms: peerP95s[i], PeerErrorRate: peerErrs[i],
			Utilization: groupUtilization(g), CostPerRequest: costs[i], PeerCostChange: peerChanges[i],
			CostRate: g.CostRate(), P95Rate: p95Rates[i], CPUStretch: stretches[i], PeerCPUStretch: peerStretches[i],
		}
		st := tr.Status(g.Node)
		if h.learn {
			st = tr.Observe(g.Node, h.at, obs)
		}
		statuses[i] = st
		switch st.State {
		case health.Healthy:
			out[i] = shares[i] * st.Weight // below 1 while it climbs back after a cut
		case health.Degraded:
			out[i] = math.Max(shares[i]*st.Weight, h.minWeight*fair[i])
		}
		total += out[i]
	}
	if total <= 0 {
		return shares, statuses, "every group is Unhealthy: health ignored this cycle"
	}
	note := ""
	for i := range out {
		out[i] /= total
		if statuses[i].State != health.Healthy && note == "" {
			note = fmt.Sprintf("group on %s is %s", groups[i].Node, statuses[i].State)
		}
	}
	return out, statuses, note
}

// stretch is the group's CPU stretch (traffic.Group.CPUStretch), NaN when
// unknown or when its node's pods use at least BusyUtilization of the
// node's CPU: waiting there may be the pods' own load queueing for the
// node's cores, which the share estimator moves, not a neighbour or a
// quota taking them.
func (h healthPass) stretch(g traffic.Group) float64 {
	busy := h.tracker.BusyUtilization()
	if u, ok := h.nodeUse[g.Node]; ok && u >= busy {
		return math.NaN()
	}
	s, ok := g.CPUStretch(busy, h.tracker.DegradedCostFactor(), h.tracker.CFSPeriod())
	if !ok {
		return math.NaN()
	}
	return s
}

// groupHealthInputs aggregates a group's load-free p95 latency (each
// replica's p95 with its own load taken out, health.LoadFree) and error
// rate, weighting replicas by the requests they served (equally when
// unknown).
// The weights are taken relative to the largest count, so that a count
// near the largest float does not overflow the sums (an infinite p95 then
// reached the health tracker). A replica whose CPU utilisation was at
// least busy gives no latency: slow because busy is load, not sickness,
// and that holds per pod. A group's mean utilisation did not show it: after
// a burst, a pod still draining its backlog (its requests completing
// seconds late) beside new idle pods on its node brought the group under
// the bar, and its node was cut as Degraded just when the new pods could
// least take its traffic.
func groupHealthInputs(g traffic.Group, busy float64) (p95, p95Rate, errRate float64) {
	most := 0.0
	for _, r := range g.Replicas {
		if r.Requests > most {
			most = r.Requests
		}
	}
	var lw, lsum, ew, esum float64
	for _, r := range g.Replicas {
		w := 1.0 // every count unknown or zero: replicas weigh alike
		if most > 0 {
			w = 1 / most // an unknown count weighs one request
			if r.Requests > 0 {
				w = r.Requests / most
			}
		}
		if u := r.CPU / r.Limit(); !math.IsNaN(r.LatencyP95) && !(u >= busy) {
			lsum += w * health.LoadFree(r.LatencyP95, u)
			lw += w
			if r.Requests > 0 {
				p95Rate += r.Requests
			}
		}
		if !math.IsNaN(r.ErrorRate) {
			esum += w * r.ErrorRate
			ew += w
		}
	}
	p95, errRate = math.NaN(), math.NaN()
	if lw > 0 {
		p95 = lsum / lw
	}
	if ew > 0 {
		errRate = esum / ew
	}
	return p95, p95Rate, errRate
}

// peerMedians is, for each value, the median of the finite values other
// than it: each group's peers. NaN where there are none. One sort serves
// every group: leaving one value out of a sorted list shifts the middle
// by at most one place.
func peerMedians(xs []float64) []float64 {
	sorted := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			sorted = append(sorted, x)
		}
	}
	slices.Sort(sorted)
	out := make([]float64, len(xs))
	for i, x := range xs {
		gap := len(sorted) // no value left out: x is not among them
		if !math.IsNaN(x) {
			gap, _ = slices.BinarySearch(sorted, x)
		}
		out[i] = medianWithout(sorted, gap)
	}
	return out
}

// medianWithout is the median of sorted without its element at gap (with
// every element when gap is past the end); NaN when nothing is left.
func medianWithout(sorted []float64, gap int) float64 {
	n := len(sorted)
	if gap < n {
		n--
	}
	at := func(k int) float64 {
		if k >= gap {
			k++
		}
		return sorted[k]
	}
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return at(n / 2)
	default:
		return (at(n/2-1) + at(n/2)) / 2
	}
}

// groupUtilization is the group's CPU use over its limits (NaN if unknown).
func groupUtilization(g traffic.Group) float64 {
	var cpu, limit float64
	for _, r := range g.Replicas {
		if math.IsNaN(r.CPU) {
			return math.NaN()
		}
		cpu += r.CPU
		limit += r.Limit()
	}
	return cpu / limit
}

package allocate

import (
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
	// seen is when each component was last in a snapshot (forgetGone
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

// protectChange is the relative share change that makes Protect re-route
// although no health state changed: well above the rounding of Istio's
// integer weights, well below the cuts that matter.
const protectChange = 0.2

// allocate is one call's pass over s, in order: index it (checking it
// whole), say what the pass learns from it, forget what has gone, plan
// every component's shares and health, and route them when the routing is
// wanted.
func (a *ARTT) allocate(s traffic.Snapshot, purpose purpose) (traffic.Allocation, bool, error) {
	x, err := traffic.NewIndex(s)
	if err != nil {
		return traffic.Allocation{}, false, err
	}
	this := a.passFor(s, purpose)
	if this.learnForecasts && !s.At.IsZero() {
		a.forgetGone(x.Downstreams(), s.At)
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

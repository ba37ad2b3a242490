package allocate

import (
	"fmt"
	"math"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/forecast"
	"github.com/artt-dev/artt/traffic/health"
)

// ARTT is forecast-driven shares, adjusted by health, routed by NTAM.
type ARTT struct {
	opts     Options
	forecast *forecast.Estimator
	health   map[string]*health.Tracker
}

// NewARTT returns ARTT with empty estimates.
func NewARTT(opts Options) *ARTT {
	return &ARTT{opts: opts, forecast: forecast.New(opts.Forecast), health: make(map[string]*health.Tracker)}
}

// Name is "artt".
func (*ARTT) Name() string { return "artt" }

// Allocate runs one ARTT cycle. Call it every cycle and again at once when
// a pod or node fails: health hysteresis runs on the snapshots' times.
func (a *ARTT) Allocate(s traffic.Snapshot) (traffic.Allocation, error) {
	x, err := traffic.NewIndex(s)
	if err != nil {
		return traffic.Allocation{}, err
	}
	estimators := make(map[string]*forecast.ComponentEstimator)
	trackers := make(map[string]*health.Tracker)
	for _, d := range x.Downstreams() {
		estimators[d] = a.forecast.Component(d)
		if a.health[d] == nil {
			a.health[d] = health.New(a.opts.Health)
		}
		trackers[d] = a.health[d]
	}
	routes, err := eachDownstream(x, a.opts.Parallelism, func(x *traffic.Index, component string) (traffic.Route, bool, error) {
		groups, supplies, ok := problem(x, component)
		if !ok {
			return traffic.Route{}, false, nil
		}
		estimates := estimators[component].Estimate(groups)
		r := traffic.Route{Component: component}
		shares := make([]float64, len(groups))
		for i, e := range estimates {
			shares[i] = e.Share
		}
		weighted, states, note := applyHealth(trackers[component], s, groups, shares, a.opts.Health.MinWeight)
		if note != "" {
			r.Notes = append(r.Notes, note)
		}
		demands := make([]traffic.Amount, len(groups))
		for i, g := range groups {
			demands[i] = traffic.Amount{Node: g.Node, Value: weighted[i]}
			r.Groups = append(r.Groups, traffic.GroupShare{
				Node: g.Node, Replicas: replicaNames(g), Share: weighted[i], Health: string(states[i]),
				Basis: estimates[i].Basis, Forecasts: estimates[i].Forecasts,
			})
		}
		return routeGroups(x, r, groups, supplies, demands, a.opts.NTAM)
	})
	return traffic.Allocation{Policy: "artt", Routes: routes}, err
}

// applyHealth observes each group's health and scales its share: Healthy
// ×1, Degraded × max(MinWeight, score) but never below MinWeight × its fair
// (replica-count) share, Unhealthy 0. When every group is Unhealthy the
// shares are kept as they were: there is nowhere else to send the traffic.
func applyHealth(tr *health.Tracker, s traffic.Snapshot, groups []traffic.Group, shares []float64, minWeight float64) ([]float64, []health.State, string) {
	fair := replicaCountShares(groups)
	out := make([]float64, len(groups))
	states := make([]health.State, len(groups))
	total := 0.0
	for i, g := range groups {
		p95, errRate := groupHealthInputs(g)
		st := tr.Observe(g.Node, s.At, p95, errRate)
		states[i] = st.State
		switch st.State {
		case health.Healthy:
			out[i] = shares[i]
		case health.Degraded:
			out[i] = math.Max(shares[i]*st.Weight, minWeight*fair[i])
		}
		total += out[i]
	}
	if total <= 0 {
		return shares, states, "every group is Unhealthy: health ignored this cycle"
	}
	note := ""
	for i := range out {
		out[i] /= total
		if states[i] != health.Healthy && note == "" {
			note = fmt.Sprintf("group on %s is %s", groups[i].Node, states[i])
		}
	}
	return out, states, note
}

// groupHealthInputs aggregates a group's p95 latency and error rate,
// weighting replicas by the requests they served (equally when unknown).
func groupHealthInputs(g traffic.Group) (p95, errRate float64) {
	var lw, lsum, ew, esum float64
	for _, r := range g.Replicas {
		w := 1.0
		if r.Requests > 0 {
			w = r.Requests
		}
		if !math.IsNaN(r.LatencyP95) {
			lsum += w * r.LatencyP95
			lw += w
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
	return p95, errRate
}

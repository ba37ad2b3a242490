package allocate

import (
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/forecast"
	"github.com/artt-dev/artt/traffic/health"
)

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
		h := healthPass{tracker: trackers[i], at: s.At, nodeUse: nodeUse, minWeight: a.opts.Health.MinWeight, judgeLatency: !x.CallsOut(component), learn: this.learnHealth}
		planned[i], ok[i] = planComponent(x, component, estimators[i], h, this.learnForecasts)
	})
	plans := make(map[string]plan, len(downs))
	for i, component := range downs {
		if ok[i] {
			plans[component] = planned[i]
		}
	}
	return plans
}

// planComponent is one component's plan: its forecast shares, weighed by
// its groups' health, and given back where the groups left cannot carry
// theirs at an equal delay (giveback.go); false when it has no groups.
func planComponent(x *traffic.Index, component string, estimator *forecast.ComponentEstimator, h healthPass, learnForecasts bool) (plan, bool) {
	groups, supplies, has := problem(x, component)
	if !has {
		return plan{}, false
	}
	estimates := estimator.Estimate(groups, learnForecasts)
	shares := make([]float64, len(groups))
	for j, e := range estimates {
		shares[j] = e.Share
	}
	weighted, statuses, note := h.apply(groups, shares)
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
	return plan{groups: groups, supplies: supplies, route: r}, true
}

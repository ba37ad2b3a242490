package allocate

import (
	"time"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/atpm"
	"github.com/artt-dev/artt/traffic/ntam"
)

// HEART is ATPM's load shares routed by NTAM.
type HEART struct {
	opts     Options
	memo     *solutionMemo
	atpm     *traffic.PerComponent[*atpm.ComponentEstimator]
	measured time.Time
}

// NewHEART returns HEART with empty estimates.
func NewHEART(opts Options) *HEART {
	return &HEART{opts: opts, memo: newSolutionMemo(), atpm: traffic.NewPerComponent(func() *atpm.ComponentEstimator { return atpm.NewComponent(opts.ATPM) })}
}

// Name is "heart".
func (*HEART) Name() string { return "heart" }

// Allocate runs one HEART cycle.
func (h *HEART) Allocate(s traffic.Snapshot) (traffic.Allocation, error) {
	x, err := traffic.NewIndex(s)
	if err != nil {
		return traffic.Allocation{}, err
	}
	learn := s.MeasuredAt.IsZero() || !s.MeasuredAt.Equal(h.measured)
	h.measured = s.MeasuredAt
	estimators := make(map[string]*atpm.ComponentEstimator)
	for _, d := range x.Downstreams() {
		estimators[d] = h.atpm.Get(d)
	}
	routes, failed := eachDownstream(x, h.opts.Parallelism, func(x *traffic.Index, component string) (traffic.Route, bool, error) {
		groups, supplies, ok := problem(x, component)
		if !ok {
			return traffic.Route{}, false, nil
		}
		shares := estimators[component].Estimate(groups, learn)
		r := traffic.Route{Component: component}
		demands := make([]traffic.Amount, len(shares))
		for i, sh := range shares {
			demands[i] = traffic.Amount{Node: sh.Node, Value: sh.Share}
			r.Groups = append(r.Groups, traffic.GroupShare{
				Node: sh.Node, Replicas: sh.Replicas, Share: sh.Share, Load: sh.Load, Basis: sh.Basis,
			})
		}
		return routeGroups(x, h.memo, r, groups, supplies, demands, h.opts.NTAM)
	})
	h.memo.forget(routed(routes))
	return traffic.Allocation{Policy: "heart", Routes: routes, Failed: failed}, nil
}

// routeGroups runs NTAM for the demands (or recalls its answer to the same
// problem) and completes the route.
func routeGroups(x *traffic.Index, memo *solutionMemo, r traffic.Route, groups []traffic.Group, supplies, demands []traffic.Amount, cfg ntam.Config) (traffic.Route, bool, error) {
	demands = traffic.Normalize(demands)
	sol, err := memo.solve(r.Component, cfg, ntam.Problem{Supplies: supplies, Demands: demands, Delays: x.DelayMatrix(memo.delayBuffer(r.Component), supplies, demands)})
	if err != nil {
		return traffic.Route{}, false, err
	}
	r.Sources, r.SlowLinks, r.RemovedLinks, r.KeptSlowUpToMs = sol.Sources, sol.SlowLinks, sol.RemovedLinks, sol.KeptSlowUpToMs
	r.Notes = append(r.Notes, sol.Notes...)
	finish(x, &r, groups)
	return r, true, nil
}

// routed is the set of components the routes cover.
func routed(routes []traffic.Route) map[string]bool {
	out := make(map[string]bool, len(routes))
	for _, r := range routes {
		out[r.Component] = true
	}
	return out
}

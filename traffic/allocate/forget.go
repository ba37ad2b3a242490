package allocate

import (
	"time"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/forecast"
	"github.com/artt-dev/artt/traffic/health"
)

// forgetGone notes the components a snapshot taken at `at` holds, then
// drops those not allocated for within Options.ForgetAfter, and within the
// others the health of groups gone as long: a cluster where Deployments
// come and go must not grow ARTT's memory. The forecasts drop their absent
// replicas themselves (forecast.Config.ForgetAfter).
func (a *ARTT) forgetGone(components []string, at time.Time) {
	for _, component := range components {
		a.seen[component] = at
	}
	before := at.Add(-a.opts.ForgetAfter)
	for component, seen := range a.seen {
		if seen.Before(before) {
			delete(a.seen, component)
			delete(a.last, component)
		}
	}
	gone := func(component string) bool { _, ok := a.seen[component]; return !ok }
	a.forecast.Forget(gone)
	a.health.Forget(gone)
	a.handover.Forget(gone)
	a.health.Each(func(_ string, t *health.Tracker) { t.Forget(before) })
}

// Tracked counts the components, groups and replicas ARTT keeps state for.
func (a *ARTT) Tracked() traffic.Tracked {
	t := traffic.Tracked{Components: len(a.seen)}
	a.health.Each(func(_ string, tr *health.Tracker) { t.Groups += tr.Len() })
	a.forecast.Each(func(_ string, e *forecast.ComponentEstimator) { t.Replicas += e.Replicas() })
	return t
}

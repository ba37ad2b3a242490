package traffic

import "time"

// Allocation is a policy's answer for one snapshot.
type Allocation struct {
	// Policy names the policy that produced it.
	Policy string
	// Routes has one entry per downstream component with serving upstreams,
	// sorted by component, but those in Failed.
	Routes []Route
	// Failed are the components the policy could not route this time, by
	// component: each keeps the routing it had, and the others are routed
	// as usual.
	Failed []ComponentFailure
}

// ComponentFailure is why one component was not routed.
type ComponentFailure struct {
	Component string
	Err       error
}

// Route says how traffic to one downstream component is spread.
type Route struct {
	// Component is the downstream component.
	Component string
	// Groups are its serving groups with their target shares and why.
	Groups []GroupShare
	// Sources are the upstream nodes, each with the fraction of its traffic
	// to send to each downstream node; the fractions of a source sum to 1.
	// Empty when Envoy is true.
	Sources []Source
	// Envoy is true when the policy leaves the component to the sidecars'
	// own per-request balancing: no locality weights are written, and
	// locality load balancing is switched off for it (weights written
	// before are removed). Groups still carry the shares the policy tracks.
	Envoy bool
	// SlowLinks counts the links classified slow, RemovedLinks those
	// dropped (HEART's filter); the others stayed because the traffic
	// needed them: the slow links of delays up to KeptSlowUpToMs (0 when
	// none stayed).
	SlowLinks, RemovedLinks int
	KeptSlowUpToMs          float64
	// Cost is Σ traffic × delay over the links used (traffic as fractions of
	// the component's total), in milliseconds.
	Cost float64
	// Notes explain fallbacks taken (missing data, all groups unhealthy, …).
	Notes []string
}

// GroupShare is one downstream group's target share.
type GroupShare struct {
	Node     string
	Replicas []string
	// Share of the component's traffic the group should receive, in [0, 1].
	Share float64
	// Load is the per-request CPU estimate (CPU seconds per request) where
	// the policy uses one.
	Load float64
	// Health is the group's health state ("" when the policy ignores health).
	Health string
	// HealthWhy is the evidence that made the group not Healthy: the
	// readings of its last bad observation past their bars.
	HealthWhy string
	// Basis says where the share came from (measured, previous, mean of
	// valid groups, equal split, forecast, warm start).
	Basis string
	// Forecasts are per-replica CPU utilisation forecasts (ARTT only).
	Forecasts []ReplicaForecast
}

// HealthSummary is the group's health state and, where known, the evidence
// for it, for logs: "Degraded: CPU per request 1.62× its baseline over
// 105 requests".
func (g GroupShare) HealthSummary() string {
	if g.HealthWhy == "" {
		return g.Health
	}
	return g.Health + ": " + g.HealthWhy
}

// ReplicaForecast is one replica's next-interval CPU utilisation forecast
// and the Holt factors the Kalman filter chose.
type ReplicaForecast struct {
	Replica     string
	Utilization float64
	Forecast    float64
	Alpha, Beta float64
	Share       float64
	// WarmStartedFrom names the reference replica of a new replica.
	WarmStartedFrom string
}

// Source is one upstream node's routing.
type Source struct {
	Node string
	// Supply is the node's part of the component's incoming traffic.
	Supply float64
	// To lists downstream nodes and the fraction of this source's traffic
	// each receives, sorted by node, zero fractions left out.
	To []Amount
}

// Route returns the route for a component.
func (a Allocation) Route(component string) (Route, bool) {
	for _, r := range a.Routes {
		if r.Component == component {
			return r, true
		}
	}
	return Route{}, false
}

// Fraction is the fraction of source's traffic sent to node to.
func (r Route) Fraction(source, to string) float64 {
	for _, s := range r.Sources {
		if s.Node == source {
			for _, t := range s.To {
				if t.Node == to {
					return t.Value
				}
			}
		}
	}
	return 0
}

// Policy turns snapshots into allocations. Stateful policies (HEART, ARTT)
// carry estimates from one call to the next; a Policy is not safe for
// concurrent use.
type Policy interface {
	Name() string
	Allocate(s Snapshot) (Allocation, error)
}

// Protector is a Policy with a fast path between cycles: Protect folds a
// new measurement into the groups' health only and reports whether the
// routing should change now (ARTT).
type Protector interface {
	Policy
	Protect(s Snapshot) (a Allocation, changed bool, err error)
}

// Resumer is a Policy whose learned state outlives its process: State is
// one component's, which artt-traffic writes beside the component's rule,
// and Resume takes every component's back in a new leader, before its
// first cycle, seen at at. A state Resume cannot read is refused alone,
// with its reason by component: that component starts from nothing, the
// others resume.
type Resumer interface {
	Policy
	State(component string) (state []byte, ok bool)
	Resume(at time.Time, states map[string][]byte) (refused map[string]error)
}

// Tracked counts what a stateful policy keeps in memory.
type Tracked struct {
	Components, Groups, Replicas int
}

// Forgetter is a Policy that forgets components, groups and replicas gone
// from the cluster, and says how many it tracks.
type Forgetter interface {
	Policy
	Tracked() Tracked
}

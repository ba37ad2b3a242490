package allocate

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/forecast"
	"github.com/artt-dev/artt/traffic/health"
)

// What a new leader needs to continue where the last one stopped, per
// component: the forecasts' shares per node (the first cycle then moves
// each by at most the usual bound), every group's health (a group cut for
// degrading stays cut until its own recovery is seen), and the
// table-or-Envoy verdict in force. The forecast filters are not carried:
// they relearn within a few cycles, and the bound holds meanwhile.

// stateVersion is the layout of componentState; a state of another
// version is refused, and its component starts from nothing.
const stateVersion = 1

type componentState struct {
	Version int          `json:"v"`
	Envoy   bool         `json:"envoy,omitempty"`
	Groups  []groupState `json:"groups"`
}

type groupState struct {
	Node string `json:"node"`
	// Share is the forecasts' share of the node, before health.
	Share  float64        `json:"share"`
	Health *health.Record `json:"health,omitempty"`
}

// State is what ARTT has learned of a component, for the next leader;
// false when it has routed nothing for it yet.
func (a *ARTT) State(component string) ([]byte, bool) {
	last, ok := a.last[component]
	if !ok {
		return nil, false
	}
	st := componentState{Version: stateVersion}
	if m, ok := a.handover.Lookup(component); ok {
		st.Envoy = m.known && m.envoy
	}
	var shares map[string]float64
	if e, ok := a.forecast.Lookup(component); ok {
		shares = e.NodeShares()
	}
	tracker, _ := a.health.Lookup(component)
	for _, node := range slices.Sorted(maps.Keys(last)) {
		g := groupState{Node: node, Share: shares[node]}
		if tracker != nil {
			if r, ok := tracker.Record(node); ok {
				g.Health = &r
			}
		}
		st.Groups = append(st.Groups, g)
	}
	b, err := json.Marshal(st)
	return b, err == nil
}

// Resume restores the components' states (State's output, by component)
// into a new ARTT before its first cycle. Each state is checked whole
// before any of it is applied; refused names every component left out and
// why.
func (a *ARTT) Resume(at time.Time, states map[string][]byte) (refused map[string]error) {
	refused = map[string]error{}
	for component, b := range states {
		if err := a.resume(at, component, b); err != nil {
			refused[component] = err
		}
	}
	return refused
}

func (a *ARTT) resume(at time.Time, component string, b []byte) error {
	var st componentState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if st.Version != stateVersion {
		return fmt.Errorf("state version = %d: this artt-traffic reads version %d", st.Version, stateVersion)
	}
	tracker := health.New(a.opts.Health)
	shares := make(map[string]float64, len(st.Groups))
	last := make(map[string]traffic.GroupShare, len(st.Groups))
	for i, g := range st.Groups {
		if g.Node == "" {
			return fmt.Errorf("groups[%d].node: empty", i)
		}
		if !(g.Share >= 0 && g.Share <= 1) || math.IsNaN(g.Share) {
			return fmt.Errorf("groups[%d].share = %v: want a fraction in [0, 1]", i, g.Share)
		}
		shares[g.Node] = g.Share
		gs := traffic.GroupShare{Node: g.Node, Share: g.Share, Health: string(health.Healthy)}
		if g.Health != nil {
			if err := tracker.Restore(g.Node, *g.Health, at); err != nil {
				return fmt.Errorf("groups[%d].health.%w", i, err)
			}
			gs.Health = string(g.Health.State)
		}
		last[g.Node] = gs
	}
	estimator := forecast.NewComponent(a.opts.Forecast)
	estimator.Seed(shares)
	a.forecast.Set(component, estimator)
	a.health.Set(component, tracker)
	a.handover.Set(component, &handoverMemory{known: true, envoy: st.Envoy})
	a.last[component] = last
	a.seen[component] = at
	return nil
}

// lastRoute is the component's groups as last handed out.
func (a *ARTT) lastRoute(component string) (map[string]traffic.GroupShare, bool) {
	r, ok := a.last[component]
	return r, ok
}

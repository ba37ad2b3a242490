package live

import (
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// The cut is timed from the event to the first table that sends the node
// at most 2/3 of the share the routing in force just before sent it,
// summed over the routed components; a node the tables never cut has none.
func TestCutTimesFromTheTablesInForce(t *testing.T) {
	sc := &scenario.Scenario{Events: []scenario.Event{
		{At: scenario.Duration{Duration: 30 * time.Second}, Type: "node-quota", Node: "n2"},
		{At: scenario.Duration{Duration: 30 * time.Second}, Type: "node-quota", Node: "n1"},
	}}
	row := func(n1, n2 uint32) map[string]map[string]uint32 {
		return map[string]map[string]uint32{locality("n1"): {locality("n1"): n1, locality("n2"): n2}}
	}
	tables := []outcome.TableChange{
		{AtS: 0, Component: "a", Rows: row(50, 50)},
		{AtS: 0, Component: "b", Rows: row(50, 50)},
		{AtS: 31, Component: "a", Rows: row(70, 30)},   // n2: 80 of 100, not yet cut
		{AtS: 36.5, Component: "b", Rows: row(70, 30)}, // n2: 60 of 100
	}
	got := CutTimes(sc, tables)
	if got[0] != 6.5 {
		t.Errorf("n2's cut: %g s after the event, want 6.5", got[0])
	}
	if !math.IsNaN(got[1]) {
		t.Errorf("n1's cut: %g s, want none (its weight rose)", got[1])
	}
}

// A component left to least-request sends a node its part of the pods; a
// table written for it at the cut sends the node less, not more, though
// its rows add weight where there were none.
func TestACutThatWritesATableIsACut(t *testing.T) {
	sc := &scenario.Scenario{
		Application: scenario.Application{Components: []scenario.Component{
			{Name: "c", Replicas: 2, Placement: []string{"n1", "n2"}},
			{Name: "d", Replicas: 2, Placement: []string{"n1", "n2"}},
		}},
		Events: []scenario.Event{{At: scenario.Duration{Duration: 30 * time.Second}, Type: "node-quota", Node: "n2"}},
	}
	row := func(n1, n2 uint32) map[string]map[string]uint32 {
		return map[string]map[string]uint32{locality("n1"): {locality("n1"): n1, locality("n2"): n2}}
	}
	tables := []outcome.TableChange{
		{AtS: 0, Component: "c"}, // left to least-request: half its pods on n2
		{AtS: 0, Component: "d", Rows: row(50, 50)},
		{AtS: 32, Component: "c", Rows: row(95, 5)}, // n2: 0.05 + 0.5 of 1
	}
	if got := CutTimes(sc, tables)[0]; got != 2 {
		t.Errorf("n2's cut: %g s after the event, want 2", got)
	}
}

package live

import (
	"math"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// CutTimes is, for each of the scenario's events, how many seconds after
// it the routing first sent the event's node at most 2/3 of the share it
// sent it just before (the share a group past the Degraded bar keeps at
// most), summed over the components the run's tables route (shareTo): NaN
// when it never did, or when the run had no tables.
func CutTimes(sc *scenario.Scenario, tables []outcome.TableChange) []float64 {
	out := make([]float64, len(sc.Events))
	for i, ev := range sc.Events {
		out[i] = math.NaN()
		at := ev.At.Seconds()
		before := shareTo(sc, tables, ev.Node, at)
		if before == 0 {
			continue
		}
		for _, t := range tables {
			if t.AtS > at && shareTo(sc, tables, ev.Node, t.AtS) <= 2*before/3 {
				out[i] = t.AtS - at
				break
			}
		}
	}
	return out
}

// shareTo is the share of its requests each component the run's tables
// route sends node under the routing in force at t (seconds), summed over
// those components. Under a table it is the row's weight to the node over
// the row's total, averaged over the callers' rows; a component without a
// table in force (left to the callers' least-request, or not routed yet)
// sends the node its part of the component's pods, as least-request
// spreads requests over pods of like speed. Summing the tables' weights
// instead read a cut as a rise where it wrote a table for a component
// that had none: the new rows added weight to the node, however small.
func shareTo(sc *scenario.Scenario, tables []outcome.TableChange, node string, t float64) float64 {
	latest := map[string]outcome.TableChange{}
	for _, tc := range tables {
		switch _, named := latest[tc.Component]; {
		case tc.AtS <= t:
			latest[tc.Component] = tc
		case !named:
			latest[tc.Component] = outcome.TableChange{Component: tc.Component} // routed later
		}
	}
	sum := 0.0
	for component, tc := range latest {
		if share, ok := tableShare(tc.Rows, node); ok {
			sum += share
		} else {
			sum += podPart(sc, component, node)
		}
	}
	return sum
}

// tableShare is the mean over a table's rows of the weight each sends
// node over its total; false for a table without a weighted row.
func tableShare(rows map[string]map[string]uint32, node string) (float64, bool) {
	var sum float64
	n := 0
	for _, row := range rows {
		var to, total uint32
		for loc, w := range row {
			total += w
			if NodeOfLocality(loc) == node {
				to += w
			}
		}
		if total > 0 {
			sum += float64(to) / float64(total)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// podPart is the part of component's initial pods the scenario places on
// node (its placement cycled over its replicas); 0 when it places none
// there or names no placement.
func podPart(sc *scenario.Scenario, component, node string) float64 {
	for _, c := range sc.Application.Components {
		if c.Name != component || c.Replicas <= 0 || len(c.Placement) == 0 {
			continue
		}
		on := 0
		for i := range c.Replicas {
			if c.Placement[i%len(c.Placement)] == node {
				on++
			}
		}
		return float64(on) / float64(c.Replicas)
	}
	return 0
}

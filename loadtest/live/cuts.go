package live

import (
	"math"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// CutTimes is, for each of the scenario's events, how many seconds after
// it the routing tables in force first sent the event's node at most 2/3
// of the weight they sent it just before (the share a group past the
// Degraded bar keeps at most): NaN when they never did, or when the run
// had no tables.
func CutTimes(sc *scenario.Scenario, tables []outcome.TableChange) []float64 {
	out := make([]float64, len(sc.Events))
	for i, ev := range sc.Events {
		out[i] = math.NaN()
		at := ev.At.Seconds()
		before := weightTo(tables, ev.Node, at)
		if before == 0 {
			continue
		}
		for _, t := range tables {
			if t.AtS > at && 3*weightTo(tables, ev.Node, t.AtS) <= 2*before {
				out[i] = t.AtS - at
				break
			}
		}
	}
	return out
}

// weightTo is the weight every component's table in force at t (seconds)
// sends to node's locality, summed over the callers' rows.
func weightTo(tables []outcome.TableChange, node string, t float64) uint32 {
	latest := map[string]outcome.TableChange{}
	for _, tc := range tables {
		if tc.AtS <= t {
			latest[tc.Component] = tc
		}
	}
	var sum uint32
	for _, tc := range latest {
		for _, row := range tc.Rows {
			for loc, w := range row {
				if NodeOfLocality(loc) == node {
					sum += w
				}
			}
		}
	}
	return sum
}

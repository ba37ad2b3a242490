package live

import (
	"math"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// The lab's spread over its seeds is shown as min–max, a capacity never
// reached as the highest, and the comparison's table carries it beside the
// scenario's seed.
func TestLabSpreadOverSeeds(t *testing.T) {
	run := func(p99 float64, lost int64, capacity float64) *outcome.Result {
		return &outcome.Result{Run: "artt", P99Ms: p99, Timeouts: lost, Capacity: []outcome.StepCapacity{{Seconds: capacity}}}
	}
	c := Comparison{Live: run(900, 40, 30), LabSeeds: []*outcome.Result{run(700, 10, 25), run(1100, 30, math.NaN()), run(800, 20, 40)}}
	c.Lab = c.LabSeeds[0]
	p99 := c.labSpread("%.0f", func(r *outcome.Result) float64 { return r.P99Ms })
	capacity := c.labSpread("%.0f", func(r *outcome.Result) float64 { return r.Capacity[0].Seconds })
	if p99 != "700–1100" || capacity != "25–never" {
		t.Errorf("spreads %q and %q; want 700–1100 and 25–never", p99, capacity)
	}
	table := ComparisonMarkdown([]Comparison{c})
	if !strings.Contains(table, "P99 ms, lab, 3 seeds") || !strings.Contains(table, "| 700–1100 |") || !strings.Contains(table, "| 10–30 |") {
		t.Errorf("the comparison does not show the lab's spread over its seeds:\n%s", table)
	}
}

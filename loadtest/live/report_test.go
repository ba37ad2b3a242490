package live

import (
	"fmt"
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

// Repeats of a run share one lab prediction: the lab's ranking names each
// run once, the live one each repeat.
func TestRankingNamesEachLabRunOnce(t *testing.T) {
	lr, artt := &outcome.Result{Run: "least-request", P99Ms: 100}, &outcome.Result{Run: "artt", P99Ms: 80}
	var cs []Comparison
	for i, p99 := range []float64{90, 120, 95, 70} {
		lab := lr
		if i%2 == 1 {
			lab = artt
		}
		cs = append(cs, Comparison{Live: &outcome.Result{Run: fmt.Sprintf("%s #%d", lab.Run, i/2+1), P99Ms: p99}, Lab: lab})
	}
	if got := strings.Join(Ranking(cs, func(c Comparison) *outcome.Result { return c.Lab }), " < "); got != "artt < least-request" {
		t.Errorf("lab ranking %q, want each run once", got)
	}
	if got := strings.Join(Ranking(cs, func(c Comparison) *outcome.Result { return c.Live }), " < "); got != "artt #2 < least-request #1 < least-request #2 < artt #1" {
		t.Errorf("live ranking %q", got)
	}
}

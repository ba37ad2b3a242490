package report

import (
	"math"
	"slices"
	"testing"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// The tail plot's curve crosses 1% at the report's P99: the point drawn at
// the P99 has the fraction of requests the P99 leaves slower.
func TestCCDFAtTheP99IsTheReportsP99(t *testing.T) {
	r := &outcome.Result{}
	for i := 1; i <= 1000; i++ {
		r.LatenciesMs = append(r.LatenciesMs, float64(i))
	}
	r.LatenciesMs = append(r.LatenciesMs, 990, 990) // ties at the P99: not slower than it
	r.SummarizeLatencies()
	n := float64(len(r.LatenciesMs))
	found := false
	for _, pt := range ccdf(r.LatenciesMs) {
		if pt.X == r.P99Ms {
			found = true
			if want := 10 / n; math.Abs(pt.Y-want) > 1e-12 {
				t.Errorf("at the P99 (%g ms) the curve says %g slower, want %g (the ten requests above it)", r.P99Ms, pt.Y, want)
			}
		}
	}
	if !found {
		t.Fatalf("no point at the P99 %g ms", r.P99Ms)
	}
	if got := ccdf(r.LatenciesMs); got[len(got)-1].Y <= 0 || got[0].Y >= 1 {
		t.Errorf("curve from %v to %v: want every fraction in (0, 1) for the log axis", got[0], got[len(got)-1])
	}
}

// Each component's panel spans exactly the pods the report's balance
// counts: its box's extremes are the component's max and min, so their
// gap is the report's max − min.
func TestBalanceBoxesAreTheReportsPerComponentFigures(t *testing.T) {
	r := &outcome.Result{Run: "artt", Pods: []outcome.PodResult{
		{Name: "a-0", Component: "a", Seconds: 60, Utilization: 0.40},
		{Name: "a-1", Component: "a", Seconds: 60, Utilization: 0.55},
		{Name: "a-2", Component: "a", Seconds: 60, Utilization: 0.47},
		{Name: "a-3", Component: "a", Seconds: 2, Utilization: 0.95}, // too short-lived to count
		{Name: "b-0", Component: "b", Seconds: 60, Utilization: 0.10},
		{Name: "b-1", Component: "b", Seconds: 60, Utilization: 0.30},
	}}
	r.SummarizePods([]string{"a", "b"}, 15)
	for _, c := range r.Components {
		_, boxes, err := balancePanel(c.Component, []*outcome.Result{r})
		if err != nil {
			t.Fatal(err)
		}
		b := boxes[0]
		if got := (b.Max - b.Min) / 100; math.Abs(got-c.Gap) > 1e-12 {
			t.Errorf("%s: box spans %g, the report's max − min is %g", c.Component, got, c.Gap)
		}
		if b.Quartile1 > b.Median || b.Median > b.Quartile3 {
			t.Errorf("%s: quartiles %g, %g, %g out of order", c.Component, b.Quartile1, b.Median, b.Quartile3)
		}
	}
	if len(r.Components) != 2 {
		t.Fatalf("per component %+v", r.Components)
	}
}

// A log axis within one decade still has labelled ticks: 1, 2 and 5 times
// its powers of ten; beyond three decades only the powers are labelled.
func TestLogTicksLabelEveryAxis(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range (readableLogTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := labels(130, 900); !slices.Equal(got, []string{"200", "500"}) {
		t.Errorf("130–900 ms labelled %v, want [200 500]", got)
	}
	if got := labels(0.2, 5000); !slices.Equal(got, []string{"1", "10", "100", "1000"}) {
		t.Errorf("0.2–5000 ms labelled %v, want the powers of ten", got)
	}
}

// cost-success.png is drawn only where a run it would show lost requests.
func TestSuccessPlotOnlyWhereSuccessDiffers(t *testing.T) {
	routing := &outcome.Result{Run: "kubernetes", Autoscaling: "none", SuccessRate: 0.9}
	scaled := &outcome.Result{Run: "artt-hpa", Autoscaling: "artt", SuccessRate: 1}
	if successDiffers([]*outcome.Result{routing, scaled}) {
		t.Error("a routing run's losses drew the autoscalers' success plot")
	}
	scaled.SuccessRate = 0.99
	if !successDiffers([]*outcome.Result{routing, scaled}) {
		t.Error("an autoscaler that lost requests drew no success plot")
	}
}

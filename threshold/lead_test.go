package threshold

import (
	"math"
	"testing"
)

// The lead normalisation reads the newest samples as evidence: a step
// lowers θ at the first poll whose newest sample shows it, and steady
// demand with ordinary noise runs at MaxThreshold.
func TestLeadThresholdFallsWithinOnePollOfAStepAndRestsAtMaxWhenSteady(t *testing.T) {
	const window, history = 40, 279 // the scaler's default poll: 40 + 240 − 1 samples
	cfg := DefaultConfig()          // lead normalisation, lead 2 samples
	theta := func(demand []float64) Result {
		r, err := Replay(cfg, demand, nil, window)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Gaussian-like noise of 3%: the sum of three uniform draws of ±3
	// (each of standard deviation 3/√3).
	steady := noisy(3, history, 100, 0, 0)
	for _, a := range [3][]float64{noisy(4, history, 0, 0, 3), noisy(5, history, 0, 0, 3), noisy(6, history, 0, 0, 3)} {
		for j := range steady {
			steady[j] += a[j]
		}
	}
	if r := theta(steady); r.Threshold != cfg.MaxThreshold {
		t.Errorf("steady demand with 3%% noise: θ = %.1f (noise %.3f, climb %.3f), want MaxThreshold %v", r.Threshold, r.NormalizedVolatility, r.NormalizedTrend, cfg.MaxThreshold)
	}
	for _, c := range []struct {
		name   string
		factor float64
		want   float64
	}{
		// ×7: the newest sample is 7× the one two back, so the climb
		// carried on is 6/7 of the newest: θ = 100 ÷ (1 + 0.86) ≈ 54.
		{"a ×7 step", 7, 55},
		// ×1.5: a climb of 0.5 carried on is 1/3 of the newest sample:
		// θ = 100 ÷ (1 + 1/3 + noise) < 75.
		{"a ×1.5 step", 1.5, 75},
	} {
		before := theta(steady[:history-1]).Threshold
		stepped := append(append([]float64{}, steady[:history-1]...), steady[history-1]*c.factor)
		r := theta(stepped)
		if before != cfg.MaxThreshold || !(r.Threshold <= c.want) {
			t.Errorf("%s: θ %.1f the poll before, %.1f at the first sample after (climb %.2f); want %v then at most %v", c.name, before, r.Threshold, r.NormalizedTrend, cfg.MaxThreshold, c.want)
		}
	}
}

// climbAhead carries the newest climb on for the lead time and never
// counts a fall; with no lead there is no climb.
func TestClimbAhead(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		window []float64
		lead   float64
		want   float64
	}{
		{"flat", []float64{10, 10, 10, 10, 10, 10}, 2, 0},
		{"a step at the newest sample: (20 + 10·2/2 − 20) ÷ 20", []float64{10, 10, 10, 10, 10, 20}, 2, 0.5},
		{"a fall", []float64{20, 20, 20, 20, 20, 10}, 2, 0},
		{"no lead", []float64{10, 10, 10, 10, 10, 20}, 0, 0},
		{"a missing newest sample: the newest finite one is the level", []float64{10, 10, 10, 10, 10, nan}, 2, 0},
		{"nothing finite", []float64{nan, nan}, 2, 0},
	}
	for _, c := range cases {
		if got := climbAhead(c.window, c.lead); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: climbAhead = %v, want %v", c.name, got, c.want)
		}
	}
	// A steady ramp: Holt follows its slope, the newest climb is the same:
	// 2 samples of slope 1 at level 100 is 2%.
	ramp := make([]float64, 40)
	for i := range ramp {
		ramp[i] = 61 + float64(i)
	}
	if got := climbAhead(ramp, 2); math.Abs(got-0.02) > 0.002 {
		t.Errorf("ramp: climbAhead = %v, want about 0.02", got)
	}
}

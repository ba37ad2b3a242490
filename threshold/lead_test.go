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
		// ×1.5: a climb of 0.5 carried on is 1/3 of the newest sample
		// (noise moves both samples by a few percent): θ ≈ 100 ÷ (1 + 1/3).
		{"a ×1.5 step", 1.5, 77},
	} {
		before := theta(steady[:history-1]).Threshold
		stepped := append(append([]float64{}, steady[:history-1]...), steady[history-1]*c.factor)
		r := theta(stepped)
		if before != cfg.MaxThreshold || !(r.Threshold <= c.want) {
			t.Errorf("%s: θ %.1f the poll before, %.1f at the first sample after (climb %.2f); want %v then at most %v", c.name, before, r.Threshold, r.NormalizedTrend, cfg.MaxThreshold, c.want)
		}
	}
	// Half a window after a ×7 step the step is one change among the
	// window's: θ is back near the maximum. A line fitted across both
	// levels would read a quarter of the step as noise and ask for Min.
	halfway := append([]float64{}, steady...)
	for i := history - window/2; i < history; i++ {
		halfway[i] *= 7
	}
	if r := theta(halfway); r.Threshold < 75 {
		t.Errorf("half a window after a ×7 step: θ = %.1f (swing %.2f, climb %.2f), want at least 75", r.Threshold, r.NormalizedVolatility, r.NormalizedTrend)
	}
}

// swingOver is the robust deviation of the changes over the lead: white
// noise of deviation σ swings by σ√2, a steady slope by nothing, and one
// step among them does not move it.
func TestSwingOver(t *testing.T) {
	noise := noisy(11, 400, 100, 0, 0)
	for _, a := range [3][]float64{noisy(12, 400, 0, 0, 1), noisy(13, 400, 0, 0, 1), noisy(14, 400, 0, 0, 1)} {
		for j := range noise {
			noise[j] += a[j] // three uniform draws of ±1: σ = 1
		}
	}
	if got := swingOver(noise, 2); math.Abs(got-math.Sqrt2/100) > 0.15*math.Sqrt2/100 {
		t.Errorf("white noise σ 1 at level 100: swing %v, want about √2/100", got)
	}
	ramp := make([]float64, 40)
	for i := range ramp {
		ramp[i] = 100 + 3*float64(i)
	}
	if got := swingOver(ramp, 2); got != 0 {
		t.Errorf("a noiseless ramp: swing %v, want 0", got)
	}
	stepped := append(append([]float64{}, noise[:200]...), noise[200:]...)
	for i := 200; i < len(stepped); i++ {
		stepped[i] += 100 // the level doubles, the noise stays
	}
	if got, flat := swingOver(stepped, 2)*stepped[len(stepped)-1], swingOver(noise, 2)*noise[len(noise)-1]; math.Abs(got-flat) > 0.1*flat {
		t.Errorf("a step among the changes moved the swing from %v to %v requests", flat, got)
	}
}

// recentClimb carries the newest climb on for the lead time and never
// counts a fall; with no lead there is no climb. trendOver follows a
// ramp's slope and ignores a fall too.
func TestRecentClimbAndTrend(t *testing.T) {
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
		if got := recentClimb(c.window, c.lead); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: recentClimb = %v, want %v", c.name, got, c.want)
		}
	}
	// A steady ramp: 2 samples of slope 1 at level 100 is 2%, read both
	// ways.
	ramp := make([]float64, 40)
	for i := range ramp {
		ramp[i] = 61 + float64(i)
	}
	if got := recentClimb(ramp, 2); math.Abs(got-0.02) > 1e-9 {
		t.Errorf("ramp: recentClimb = %v, want 0.02", got)
	}
	if got := trendOver(ramp, 2); math.Abs(got-0.02) > 0.002 {
		t.Errorf("ramp: trendOver = %v, want about 0.02", got)
	}
	fall := make([]float64, 40)
	for i := range fall {
		fall[i] = 200 - 2*float64(i)
	}
	if got := trendOver(fall, 2); got != 0 {
		t.Errorf("a falling ramp: trendOver = %v, want 0", got)
	}
}

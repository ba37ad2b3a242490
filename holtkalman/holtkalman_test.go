package holtkalman

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFilterTracksLevelAndTrend(t *testing.T) {
	cfg := DefaultNoise()
	var f Filter
	for i := range 60 {
		f.Update(0.2+0.01*float64(i), cfg)
	}
	// The next value of the line is 0.8.
	if got := f.Forecast(); math.Abs(got-0.8) > 0.01 {
		t.Errorf("forecast %v after a clean ramp, want ≈ 0.8", got)
	}
}

func TestKalmanFactorsFollowNoise(t *testing.T) {
	cfg := DefaultNoise()
	rng := rand.New(rand.NewPCG(1, 2))
	var calm, noisy Filter
	for range 100 {
		calm.Update(0.5+0.001*rng.NormFloat64(), cfg)
		noisy.Update(0.5+0.2*rng.NormFloat64(), cfg)
	}
	ac, _ := calm.Factors()
	an, _ := noisy.Factors()
	if !(ac > an) {
		t.Errorf("α calm %v not above α noisy %v: noisy observations should be smoothed more", ac, an)
	}
	if ac <= 0 || ac >= 1 || an <= 0 || an >= 1 {
		t.Errorf("factors %v, %v outside (0, 1)", ac, an)
	}
}

// The observation (utilisation per unit share) grows with the number of
// replicas; the filter's factors must not depend on that scale, so its noise
// model is relative to the level.
func TestFactorsDoNotDependOnScale(t *testing.T) {
	cfg := DefaultNoise()
	rng := rand.New(rand.NewPCG(3, 4))
	var small, large Filter
	for range 60 {
		z := rng.NormFloat64()
		small.Update(0.5*(1+0.05*z), cfg)
		large.Update(5*(1+0.05*z), cfg)
	}
	as, _ := small.Factors()
	al, _ := large.Factors()
	if math.Abs(as-al) > 0.02 {
		t.Errorf("α %.3f at level 0.5 and %.3f at level 5 for the same relative noise; want equal", as, al)
	}
}

// A lasting change of level (a node slowing down or recovering) is not
// noise: the filter must follow it within a few intervals instead of
// inflating its noise estimate and freezing.
func TestFilterFollowsALevelShift(t *testing.T) {
	cfg := DefaultNoise()
	rng := rand.New(rand.NewPCG(5, 6))
	var f Filter
	for range 40 {
		f.Update(2*(1+0.05*rng.NormFloat64()), cfg)
	}
	for i := range 6 {
		f.Update(6*(1+0.05*rng.NormFloat64()), cfg)
		if i == 5 {
			if got := f.Forecast(); math.Abs(got/6-1) > 0.15 {
				t.Errorf("forecast %.2f six intervals after the level tripled to 6; want within 15%%", got)
			}
		}
	}
}

// steady is a filter that has seen 20 samples of level with 2% noise.
func steady(level float64, cfg Noise) Filter {
	rng := rand.New(rand.NewPCG(8, 8))
	var f Filter
	for range 20 {
		f.Update(level*(1+0.02*rng.NormFloat64()), cfg)
	}
	return f
}

// One sample far from the level, above or below, moves nothing: the next
// forecast is where it would have been. Followed, a sample ten times the
// level left the forecast near three times it thirty intervals later.
func TestLoneOutlierIsSetAside(t *testing.T) {
	cfg := DefaultNoise()
	for _, outlier := range []float64{4, 0, 1e300} {
		f := steady(0.4, cfg)
		f.Update(outlier, cfg)
		f.Update(0.4, cfg)
		if got := f.Forecast(); math.Abs(got/0.4-1) > 0.02 {
			t.Errorf("after one sample of %g: forecast %v, want within 2%% of 0.4", outlier, got)
		}
	}
}

// Two outliers in a row are a shift, or noise wider than the filter
// thought: at most one sample in a row is set aside, so a filter fed wild
// alternating samples still learns from every other one.
func TestNeverTwoSamplesSetAsideInARow(t *testing.T) {
	cfg := DefaultNoise()
	f := steady(0.4, cfg)
	before := f.Observations()
	for i := range 20 {
		y := 4.0
		if i%2 == 1 {
			y = 0.004
		}
		f.Update(y, cfg)
	}
	if got := f.Observations() - before; got < 10 {
		t.Errorf("%d of 20 wild samples observed, want at least every other one", got)
	}
}

// A sample too large to square, alone or twice in a row (when the gate
// lets the second through), never leaves the filter forecasting NaN; and a
// first sample that large does not start it.
func TestFilterOutlivesAnOverflowingSample(t *testing.T) {
	cfg := DefaultNoise()
	for _, outlier := range []float64{1e300, 1e160} {
		f := steady(0.4, cfg)
		f.Update(outlier, cfg)
		f.Update(outlier, cfg)
		if got := f.Forecast(); !f.finite() || math.IsNaN(got) || math.IsInf(got, 0) {
			t.Fatalf("after two samples of %g: forecast %v, state %+v", outlier, got, f)
		}
		for range 5 {
			f.Update(0.4, cfg)
		}
		if got := f.Forecast(); math.Abs(got/0.4-1) > 0.05 {
			t.Errorf("after two samples of %g: forecast %v, want within 5%% of 0.4", outlier, got)
		}
	}
	var f Filter
	f.Update(1e300, cfg)
	if f.Observations() != 0 || !math.IsNaN(f.Forecast()) {
		t.Errorf("a first sample of 1e300 started the filter: %d observations, forecast %v", f.Observations(), f.Forecast())
	}
	if f.Update(0.4, cfg); f.Forecast() != 0.4 {
		t.Errorf("the next sane sample gives forecast %v, want 0.4", f.Forecast())
	}
}

package threshold

import (
	"math"
	"testing"
)

// The predictive normalisation keeps its own misses as headroom. Flat
// demand is forecast exactly: θ rests at MaxThreshold. After a ×3 step
// (100 → 300) half a window back, the forecasts made two samples before
// the step missed it by about 200, and those misses are the window's top
// errors: headroom 200 ÷ 300 of the newest sample, on top of what the
// forecast still carries of the step as trend, so θ = 100 ÷ (1 + rise +
// 2/3) is at most 60: room for another step like it for as long as the
// miss stays in the window, where lead, which reads the step as one
// change among the window's, is back at MaxThreshold.
func TestPredictiveKeepsItsMissesAsHeadroom(t *testing.T) {
	const window = 40
	cfg := DefaultConfig()
	cfg.Normalization = NormalizationPredictive
	theta := func(c Config, demand []float64) Result {
		r, err := Replay(c, demand, nil, window)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	flat := make([]float64, window)
	for i := range flat {
		flat[i] = 100
	}
	if r := theta(cfg, flat); r.Threshold != cfg.MaxThreshold {
		t.Errorf("flat demand: θ = %.1f (rise %.3f, headroom %.3f), want MaxThreshold %v", r.Threshold, r.NormalizedTrend, r.NormalizedVolatility, cfg.MaxThreshold)
	}
	stepped := append([]float64{}, flat...)
	for i := window / 2; i < window; i++ {
		stepped[i] = 300
	}
	r := theta(cfg, stepped)
	want := 100 / (1 + r.NormalizedTrend + r.NormalizedVolatility)
	if r.NormalizedVolatility < 0.63 || r.NormalizedVolatility > 0.70 || r.NormalizedTrend < 0 || math.Abs(r.Threshold-want) > 1e-9 || r.Threshold > 60 {
		t.Errorf("half a window after a ×3 step: θ = %.1f (rise %.3f, headroom %.3f of the newest); want headroom about 2/3 and θ = 100 ÷ (1 + rise + headroom) = %.1f, at most 60", r.Threshold, r.NormalizedTrend, r.NormalizedVolatility, want)
	}
	if l := theta(DefaultConfig(), stepped); l.Threshold != cfg.MaxThreshold {
		t.Errorf("lead half a window after the step: θ = %.1f, want MaxThreshold", l.Threshold)
	}
	// A forecast of falling demand needs no headroom at all.
	falling := make([]float64, window)
	for i := range falling {
		falling[i] = 400 - 9*float64(i)
	}
	if r := theta(cfg, falling); r.Threshold != cfg.MaxThreshold {
		t.Errorf("falling demand: θ = %.1f, want MaxThreshold %v", r.Threshold, cfg.MaxThreshold)
	}
}

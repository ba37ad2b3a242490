package threshold

import (
	"math"

	"github.com/artt-dev/artt/traffic/forecast"
)

// lead is NormalizationLead: the headroom the peaks expected before new
// replicas can serve call for. Noise of relative standard deviation σ
// reaches z·σ above the level; demand climbing now is expected
// climb_rel higher within the lead time. Keeping both under Ceiling (the
// CPU request, which the scheduler guarantees) needs
//
//	θ = min(MaxThreshold, Ceiling ÷ (1 + z·σ_rel·c_rel + climb_rel)),
//
// at least MinThreshold. The headroom MaxThreshold already leaves below
// Ceiling (25% at 80) absorbs ordinary noise, so steady demand runs at
// MaxThreshold and pays for the headroom a burst needs. The climb is read
// from the newest samples and never from the window's robust trend, which
// sets a step's first samples aside as outliers: see climbAhead.
// NormalizedVolatility and NormalizedTrend hold the two excursions.
func (t *Tracker) lead(r *Result, window []float64, fit LineFit, volatility, cost float64) {
	t.costs.Add(cost)
	r.ScaledVolatility = volatility * cost
	r.TrendWeight, r.VolatilityWeight = 1, 1
	r.NormalizedVolatility = t.noiseExcursion(fit, volatility, cost)
	r.NormalizedTrend = climbAhead(window, t.cfg.Lead)
	r.Threshold = math.Min(t.cfg.MaxThreshold, t.cfg.Ceiling/(1+r.NormalizedVolatility+r.NormalizedTrend))
	r.Threshold = math.Max(r.Threshold, t.cfg.MinThreshold)
}

// noiseExcursion is z·σ_rel·c_rel: the window's noise about its robust line
// as a fraction of its mean demand, z standard deviations out, scaled by the
// per-request cost against its mean over the history (1 when constant).
func (t *Tracker) noiseExcursion(fit LineFit, volatility, cost float64) float64 {
	mean := math.Abs(fit.Mean)
	if mean == 0 {
		return 0
	}
	costRel := 1.0
	if m := t.costs.Mean(); m > 0 {
		costRel = cost / m
	}
	return t.cfg.z() * meanAbsToSigma * volatility / mean * costRel
}

// climbAhead is the rise in demand expected within lead samples, as a
// fraction of the newest sample: the larger of
//   - the climb of the last ⌈lead⌉ samples carried on as far again, which
//     sees a step at the first sample that shows it, and
//   - Holt's trend over lead samples, its factors tuned by a Kalman filter
//     (package forecast, the filter artt-traffic runs per replica), which
//     follows a ramp's slope through noise; its outlier gate sets a lone
//     jump aside for one sample, the first term does not.
//
// Neither counts a fall: 0 when demand is flat or falling.
func climbAhead(window []float64, lead float64) float64 {
	newest := -1
	for i := len(window) - 1; i >= 0; i-- {
		if isFinite(window[i]) {
			newest = i
			break
		}
	}
	if lead <= 0 || newest < 0 || window[newest] <= 0 {
		return 0
	}
	now := window[newest]
	var climb float64
	if back := newest - int(math.Ceil(lead)); back >= 0 && isFinite(window[back]) {
		climb = (now - window[back]) * lead / float64(newest-back)
	}
	noise := forecast.DefaultConfig().Noise
	var f forecast.Filter
	for _, y := range window[:newest+1] {
		if isFinite(y) {
			f.Update(y, noise)
		} else {
			f.Skip(noise)
		}
	}
	if b := f.Trend() * lead; b > climb {
		climb = b
	}
	return math.Max(climb, 0) / now
}

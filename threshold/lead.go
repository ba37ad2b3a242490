package threshold

import (
	"math"

	"github.com/artt-dev/artt/traffic/forecast"
)

// lead is NormalizationLead: the headroom the peaks expected before new
// replicas can serve call for. Demand can be higher than now, within the
// lead time, by its ordinary swing over that time (z standard deviations
// of the window's changes over Lead samples) and by the climb it is on.
// Keeping both under Ceiling (the CPU request, which the scheduler
// guarantees) needs
//
//	θ = min(MaxThreshold, Ceiling ÷ (1 + z·σ_lead·c_rel + climb_rel)),
//
// at least MinThreshold, both excursions relative to the newest sample. The
// headroom MaxThreshold already leaves below Ceiling (25% at 80) absorbs
// ordinary noise, so steady demand runs at MaxThreshold and pays for the
// headroom a burst needs. Both are read from the newest samples and the
// window's changes, never from the window's robust line: it sets a step's
// first samples aside as outliers, and once a step fills half the window a
// line across both levels leaves residuals of a quarter of the step, which
// is no noise at all. NormalizedVolatility and NormalizedTrend hold the two
// excursions.
func (t *Tracker) lead(r *Result, window []float64, fit LineFit, volatility, cost float64) {
	t.costs.Add(cost)
	r.ScaledVolatility = volatility * cost
	r.TrendWeight, r.VolatilityWeight = 1, 1
	r.NormalizedVolatility = t.cfg.z() * swingOver(window, t.cfg.Lead) * t.costRelative(cost)
	r.NormalizedTrend = climbAhead(window, t.cfg.Lead)
	r.Threshold = math.Min(t.cfg.MaxThreshold, t.cfg.Ceiling/(1+r.NormalizedVolatility+r.NormalizedTrend))
	r.Threshold = math.Max(r.Threshold, t.cfg.MinThreshold)
}

// swingOver is the standard deviation of the window's changes over lead
// samples (at least one), estimated robustly, relative to the newest
// sample: 1.4826 × the median absolute deviation of y[i+k] − y[i] about
// their median, k = ⌈lead⌉. A steady slope shifts every change alike and
// is the climb's to count; a step is one change among many and moves the
// median of none. White noise of deviation σ swings by σ√2.
func swingOver(window []float64, lead float64) float64 {
	k := max(1, int(math.Ceil(lead)))
	var changes []float64
	for i := k; i < len(window); i++ {
		if isFinite(window[i]) && isFinite(window[i-k]) {
			changes = append(changes, window[i]-window[i-k])
		}
	}
	newest := newestFinite(window)
	if len(changes) < 2 || !(newest > 0) {
		return 0
	}
	return madToSigma * medianAbsoluteDeviation(changes, make([]float64, len(changes))) / newest
}

// costRelative is the per-request cost against its mean over the history
// (1 when unknown or constant).
func (t *Tracker) costRelative(cost float64) float64 {
	if m := t.costs.Mean(); m > 0 {
		return cost / m
	}
	return 1
}

// newestFinite is the newest finite sample, NaN when there is none.
func newestFinite(window []float64) float64 {
	for i := len(window) - 1; i >= 0; i-- {
		if isFinite(window[i]) {
			return window[i]
		}
	}
	return math.NaN()
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

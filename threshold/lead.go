package threshold

import (
	"math"

	"github.com/artt-dev/artt/holtkalman"
)

// lead is NormalizationLead: the headroom the peaks expected before new
// replicas can serve call for. Within the lead time demand can rise by its
// ordinary swing over that time (z standard deviations of the window's
// changes over Lead samples, scaled by c_rel) plus the trend it is on
// (Holt's), or by as much again as it just rose, whichever is more:
//
//	excursion = max(z·σ_lead·c_rel + trend_rel, climb_rel)
//	θ = min(MaxThreshold, Ceiling ÷ (1 + excursion)), at least MinThreshold,
//
// everything relative to the newest sample. The newest climb is itself a
// change over the lead time, noise included, so it replaces the noise's
// allowance instead of adding to it. Ceiling is the CPU request, which the
// scheduler guarantees; the room MaxThreshold already leaves below it (25%
// at 80) absorbs ordinary noise, so steady demand runs at MaxThreshold and
// pays for the headroom a burst needs. Nothing is read from the window's
// robust line: it sets a step's first samples aside as outliers, and once
// a step fills half the window a line across both levels leaves residuals
// of a quarter of the step, which is no noise at all. NormalizedVolatility
// holds z·σ_lead·c_rel and NormalizedTrend the rest of the excursion.
type lead struct {
	cfg *Config
	z   float64
}

func (ld lead) target(r Result, w fitted) Result {
	r.ScaledVolatility = w.volatility * w.cost
	r.TrendWeight, r.VolatilityWeight = 1, 1
	noise := ld.z * swingOver(w.samples, ld.cfg.Lead) * w.costRel
	excursion := math.Max(noise+trendOver(w.samples, ld.cfg.Lead), recentClimb(w.samples, ld.cfg.Lead))
	r.NormalizedVolatility, r.NormalizedTrend = noise, excursion-noise
	r.Threshold = math.Min(ld.cfg.MaxThreshold, ld.cfg.Ceiling/(1+excursion))
	r.Threshold = math.Max(r.Threshold, ld.cfg.MinThreshold)
	return r
}

// swingOver is the standard deviation of the window's changes over lead
// samples (at least one), estimated robustly, relative to the newest
// sample: 1.4826 × the median absolute deviation of y[i+k] − y[i] about
// their median, k = ⌈lead⌉. A steady slope shifts every change alike and
// is the climb's to count; a step is one change among many and moves the
// median of none. White noise of deviation σ swings by σ√2.
func swingOver(window []float64, lead float64) float64 {
	k := max(1, int(math.Ceil(lead)))
	newest := newestIndex(window)
	if newest < 0 || !(window[newest] > 0) || len(window) <= k {
		return 0
	}
	buf := make([]float64, 2*(len(window)-k)) // the changes, then the median's scratch
	changes := buf[:0]
	for i := k; i < len(window); i++ {
		if isFinite(window[i]) && isFinite(window[i-k]) {
			changes = append(changes, window[i]-window[i-k])
		}
	}
	if len(changes) < 2 {
		return 0
	}
	return madToSigma * medianAbsoluteDeviation(changes, buf[len(window)-k:][:len(changes)]) / window[newest]
}

// recentClimb is the climb of the newest ⌈lead⌉ samples carried on for
// lead samples, as a fraction of the newest sample: it sees a step at the
// first sample that shows it. A fall counts as 0.
func recentClimb(window []float64, lead float64) float64 {
	newest := newestIndex(window)
	if lead <= 0 || newest < 0 || !(window[newest] > 0) {
		return 0
	}
	back := newest - int(math.Ceil(lead))
	if back < 0 || !isFinite(window[back]) {
		return 0
	}
	climb := (window[newest] - window[back]) * lead / float64(newest-back)
	return math.Max(climb, 0) / window[newest]
}

// trendOver is the trend of a Holt filter over the window, its factors
// tuned by a Kalman filter (package holtkalman, the filter artt-traffic
// runs per replica), over lead samples, as a fraction of the newest
// sample: it follows a ramp's slope through noise. Its outlier gate sets a
// lone jump aside for a sample; recentClimb does not. A falling trend
// counts as 0.
func trendOver(window []float64, lead float64) float64 {
	newest := newestIndex(window)
	if lead <= 0 || newest < 0 || !(window[newest] > 0) {
		return 0
	}
	noise := holtkalman.DefaultNoise()
	var f holtkalman.Filter
	for _, y := range window[:newest+1] {
		f.Observe(y, noise)
	}
	return math.Max(f.Trend()*lead, 0) / window[newest]
}

// newestIndex is the index of the newest finite sample, -1 when there is
// none.
func newestIndex(window []float64) int {
	for i := len(window) - 1; i >= 0; i-- {
		if isFinite(window[i]) {
			return i
		}
	}
	return -1
}

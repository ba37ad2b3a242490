package threshold

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/holtkalman"
	"github.com/artt-dev/artt/internal/stats"
)

// predictive is NormalizationPredictive: the threshold from a forecast of
// the demand one lead time ahead, with the forecast's own error as its
// headroom. A Holt filter whose factors a Kalman filter tunes (package
// forecast's, as lead's trend) runs over the window; after each sample it
// forecasts k = ⌈Lead⌉ samples ahead, and k samples later that forecast's
// error is known. The newest forecast plus the Quantile-th quantile of
// those errors (under-forecasts positive, at least 0) is the demand to
// keep under Ceiling when new replicas serve:
//
//	θ = Ceiling × y_now ÷ (ŷ(now + k) + e_q), within [MinThreshold, MaxThreshold].
//
// A forecast of falling demand raises θ to MaxThreshold, no further. Until
// WarmUp errors are known the headroom is 0. NormalizedTrend holds the
// forecast's rise relative to y_now, NormalizedVolatility the error
// quantile's.
type predictive struct {
	cfg *Config
	z   float64
}

func (pd predictive) target(r Result, w fitted) Result {
	r.ScaledVolatility = w.volatility * w.cost
	r.TrendWeight, r.VolatilityWeight = 1, 1
	newest := newestIndex(w.samples)
	if newest < 0 || !(w.samples[newest] > 0) {
		r.Threshold = pd.cfg.MaxThreshold
		return r
	}
	k := max(1, int(math.Ceil(pd.cfg.Lead)))
	ahead, errs := forecastAhead(w.samples[:newest+1], k)
	headroom := 0.0
	if len(errs) >= pd.cfg.WarmUp {
		slices.Sort(errs)
		headroom = math.Max(stats.Quantile(errs, pd.cfg.Quantile), 0)
	}
	now := w.samples[newest]
	r.NormalizedTrend = ahead/now - 1
	r.NormalizedVolatility = headroom / now
	r.Threshold = pd.cfg.MaxThreshold // a forecast falling to nothing needs no headroom
	if peak := ahead + headroom; peak > 0 {
		r.Threshold = clamp(pd.cfg.Ceiling*now/peak, pd.cfg.MinThreshold, pd.cfg.MaxThreshold)
	}
	return r
}

// forecastAhead runs the filter over the window and returns its newest
// forecast k samples ahead, and the error of every earlier such forecast
// whose sample is in the window (the sample less the forecast).
func forecastAhead(window []float64, k int) (ahead float64, errs []float64) {
	noise := holtkalman.DefaultNoise()
	var f holtkalman.Filter
	made := make([]float64, len(window)) // made[i]: the forecast for sample i+k, NaN before any
	for i, y := range window {
		f.Observe(y, noise)
		made[i] = math.NaN()
		if f.Observations() > 0 {
			made[i] = f.Forecast() + float64(k-1)*f.Trend()
		}
		if j := i - k; j >= 0 && isFinite(y) && isFinite(made[j]) {
			errs = append(errs, y-made[j])
		}
	}
	return made[len(window)-1], errs
}

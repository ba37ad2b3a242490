package threshold

import "math"

// meanAbsToSigma turns a mean absolute deviation of normal noise into its
// standard deviation (√(π/2)).
const meanAbsToSigma = 1.2533

// relative is NormalizationRelative: the headroom the window's own noise
// and climb call for, both as fractions of its mean demand. Noise of
// relative standard deviation σ reaches z·σ above the level with
// probability 1 − Quantile; a climb adds its drift across the window.
// Keeping the workload's peaks under MaxThreshold then needs
//
//	θ = MaxThreshold ÷ (1 + z·σ_rel·c_rel + drift_rel),
//
// clamped to [MinThreshold, MaxThreshold]. c_rel is the per-request cost
// against its mean over the history (1 when constant): the same swing costs
// more CPU when requests got dearer (replicas on slower nodes). A steady
// workload with 3% noise gets θ ≈ Max ÷ 1.06; one with 20% noise or doubling
// across the window gets Min. NormalizedVolatility and NormalizedTrend hold
// the two relative excursions (not clamped to 1), and the weights are 1:
// the excursions add.
type relative struct {
	cfg *Config
	z   float64
}

func (rl relative) target(r Result, w fitted) Result {
	r.ScaledVolatility = w.volatility * w.cost
	r.TrendWeight, r.VolatilityWeight = 1, 1
	if mean := math.Abs(w.fit.Mean); mean > 0 {
		// z·σ_rel·c_rel: the noise about the robust line, z standard
		// deviations out, as a fraction of the mean demand.
		r.NormalizedVolatility = rl.z * meanAbsToSigma * w.volatility / mean * w.costRel
		r.NormalizedTrend = w.rising * w.fit.Span / mean
	}
	r.Threshold = rl.cfg.MaxThreshold / (1 + r.NormalizedVolatility + r.NormalizedTrend)
	r.Threshold = clamp(r.Threshold, rl.cfg.MinThreshold, rl.cfg.MaxThreshold)
	return r
}

// clamp is x within [lo, hi].
func clamp(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }

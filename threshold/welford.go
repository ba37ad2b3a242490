package threshold

// welford is the paper's normalisation: each signal against its own
// history's Welford bounds, weighted by the fit's R², the pressure mapped
// linearly onto [MinThreshold, MaxThreshold]. ModeLARE, the baseline, has
// the volatility alone, unscaled by the per-request cost.
type welford struct {
	cfg        *Config
	trend, vol upperBound
	// withTrend is ModeARTT's: the trend counts, and the volatility is
	// scaled by the per-request cost.
	withTrend bool
}

func newWelford(cfg *Config, withTrend bool) welford {
	z := cfg.z()
	return welford{
		cfg:       cfg,
		trend:     upperBound{z: z, warmUp: cfg.WarmUp},
		vol:       upperBound{z: z, warmUp: cfg.WarmUp},
		withTrend: withTrend,
	}
}

func (wf *welford) target(r Result, w fitted) Result {
	if wf.withTrend {
		r.ScaledVolatility = w.volatility * w.cost
		r.TrendOutlier = !wf.trend.observe(w.rising)
		r.VolatilityOutlier = !wf.vol.observe(r.ScaledVolatility)
		r.NormalizedTrend = wf.trend.normalize(w.rising)
		r.NormalizedVolatility = wf.vol.normalize(r.ScaledVolatility)
		r.TrendWeight = w.fit.RSquared
		r.VolatilityWeight = 1 - w.fit.RSquared
	} else {
		r.ScaledVolatility = w.volatility
		r.VolatilityOutlier = !wf.vol.observe(r.ScaledVolatility)
		r.NormalizedVolatility = wf.vol.normalize(r.ScaledVolatility)
		r.VolatilityWeight = 1
	}
	r.TrendUpper = wf.trend.upper()
	r.VolatilityUpper = wf.vol.upper()
	pressure := r.TrendWeight*r.NormalizedTrend + r.VolatilityWeight*r.NormalizedVolatility
	r.Threshold = wf.cfg.MaxThreshold - (wf.cfg.MaxThreshold-wf.cfg.MinThreshold)*pressure
	// Guard the bounds against rounding at the ends of the interval.
	r.Threshold = clamp(r.Threshold, wf.cfg.MinThreshold, wf.cfg.MaxThreshold)
	return r
}

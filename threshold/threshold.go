package threshold

import (
	"errors"
	"fmt"
	"github.com/artt-dev/artt/internal/stats"
	"math"
)

// Result is one threshold with every part that produced it, so an operator
// can see why it moved.
type Result struct {
	// Threshold is in [MinThreshold, MaxThreshold] (StaticThreshold in ModeStatic).
	Threshold float64
	// Mode is the mode that produced it.
	Mode Mode
	// Fitted is false while no window had enough samples to fit: the
	// threshold is then MaxThreshold, as with no evidence of change.
	Fitted bool
	// Trend is the fitted demand slope per sample.
	Trend float64
	// Volatility is the mean absolute residual of the fit, in demand units.
	Volatility float64
	// CostPerRequest is the per-request CPU cost used to scale volatility.
	CostPerRequest float64
	// ScaledVolatility is Volatility × CostPerRequest (ModeARTT) or
	// Volatility (ModeLARE): the value that is normalised.
	ScaledVolatility float64
	// TrendUpper and VolatilityUpper are the current normalisation bounds.
	TrendUpper, VolatilityUpper float64
	// NormalizedTrend and NormalizedVolatility are the signals as the
	// normalisation scales them: in [0, 1] against the Welford bounds
	// (ModeLARE, NormalizationWelford); relative to the window's mean, or
	// the expected excursion over the lead time, otherwise, and then
	// unbounded.
	NormalizedTrend, NormalizedVolatility float64
	// TrendWeight and VolatilityWeight weigh the two signals: summing to 1
	// against the Welford bounds, both 1 otherwise.
	TrendWeight, VolatilityWeight float64
	// TrendOutlier and VolatilityOutlier report values kept out of the bounds.
	TrendOutlier, VolatilityOutlier bool
	// Inliers and Samples describe the last fit.
	Inliers, Samples int
}

// Tracker computes a threshold per window of demand, carrying the
// normalisation bounds from one window to the next. It is not safe for
// concurrent use; it holds no other state, so two trackers fed the same
// windows agree bit for bit.
type Tracker struct {
	cfg        Config
	trend, vol upperBound
	lastCost   float64
	// costs is the history of per-request costs (relative normalisation).
	costs stats.Welford
	last  Result
}

// NewTracker validates cfg and returns an empty tracker.
func NewTracker(cfg Config) (*Tracker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	z := cfg.z()
	return &Tracker{
		cfg:   cfg,
		trend: upperBound{z: z, warmUp: cfg.WarmUp},
		vol:   upperBound{z: z, warmUp: cfg.WarmUp},
		last:  Result{Threshold: restingThreshold(cfg), Mode: cfg.Mode},
	}, nil
}

// restingThreshold is the threshold with no evidence of change.
func restingThreshold(cfg Config) float64 {
	if cfg.Mode == ModeStatic {
		return cfg.StaticThreshold
	}
	return cfg.MaxThreshold
}

// Last returns the most recent result (the resting threshold before any fit).
func (t *Tracker) Last() Result { return t.last }

// Update fits the demand window (one sample per interval, oldest first; NaN
// marks a missing sample) and returns the new threshold. costPerRequest is
// the component's CPU seconds per request over the same interval; a NaN,
// infinite or non-positive cost is replaced by the last valid one, or 1 when
// there was none. A window with too few samples returns ErrInsufficientData
// and leaves the tracker unchanged.
func (t *Tracker) Update(window []float64, costPerRequest float64) (Result, error) {
	if t.cfg.Mode == ModeStatic {
		t.last = Result{Threshold: t.cfg.StaticThreshold, Mode: ModeStatic, Fitted: true}
		return t.last, nil
	}
	fit, err := FitLineRANSAC(window, t.cfg.RANSAC)
	if err != nil {
		return t.last, err
	}
	// Finite samples can still overflow the fit's sums (±1e308): such a
	// window says nothing usable, like one with too few samples.
	for _, v := range []float64{fit.Slope, fit.Mean, fit.MeanAbsResidual, fit.Span} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return t.last, fmt.Errorf("%w: the window's values overflow the fit", ErrInsufficientData)
		}
	}
	if costPerRequest > 0 && !math.IsInf(costPerRequest, 0) {
		t.lastCost = costPerRequest
	}
	cost := t.lastCost
	if cost == 0 {
		cost = 1
	}

	r := Result{
		Mode:           t.cfg.Mode,
		Fitted:         true,
		Trend:          fit.Slope,
		Volatility:     fit.MeanAbsResidual,
		CostPerRequest: cost,
		Inliers:        fit.Inliers,
		Samples:        fit.Samples,
	}
	// Below the deadband, changes are measurement noise, not demand.
	band := t.cfg.Deadband * math.Abs(fit.Mean)
	volatility := fit.MeanAbsResidual
	if volatility <= band {
		volatility = 0
	}
	rising := math.Max(fit.Slope, 0)
	if rising*fit.Span <= band {
		rising = 0
	}
	switch {
	case t.cfg.Mode == ModeARTT && t.cfg.Normalization == NormalizationLead:
		t.lead(&r, window, volatility, cost)
		t.last = r
		return r, nil
	case t.cfg.Mode == ModeARTT && t.cfg.Normalization == NormalizationRelative:
		t.relative(&r, fit, volatility, rising, cost)
		t.last = r
		return r, nil
	case t.cfg.Mode == ModeARTT:
		r.ScaledVolatility = volatility * cost
		r.TrendOutlier = !t.trend.observe(rising)
		r.VolatilityOutlier = !t.vol.observe(r.ScaledVolatility)
		r.NormalizedTrend = t.trend.normalize(rising)
		r.NormalizedVolatility = t.vol.normalize(r.ScaledVolatility)
		r.TrendWeight = fit.RSquared
		r.VolatilityWeight = 1 - fit.RSquared
	case t.cfg.Mode == ModeLARE:
		r.ScaledVolatility = volatility
		r.VolatilityOutlier = !t.vol.observe(r.ScaledVolatility)
		r.NormalizedVolatility = t.vol.normalize(r.ScaledVolatility)
		r.VolatilityWeight = 1
	}
	r.TrendUpper = t.trend.upper()
	r.VolatilityUpper = t.vol.upper()
	pressure := r.TrendWeight*r.NormalizedTrend + r.VolatilityWeight*r.NormalizedVolatility
	r.Threshold = t.cfg.MaxThreshold - (t.cfg.MaxThreshold-t.cfg.MinThreshold)*pressure
	// Guard the bounds against rounding at the ends of the interval.
	r.Threshold = math.Min(math.Max(r.Threshold, t.cfg.MinThreshold), t.cfg.MaxThreshold)
	t.last = r
	return r, nil
}

// meanAbsToSigma turns a mean absolute deviation of normal noise into its
// standard deviation (√(π/2)).
const meanAbsToSigma = 1.2533

// relative is NormalizationRelative: the headroom the window's own noise and
// climb call for, both as fractions of its mean demand. Noise of relative
// standard deviation σ reaches z·σ above the level with probability
// 1 − Quantile; a climb adds its drift across the window. Keeping the
// workload's peaks under MaxThreshold then needs
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
func (t *Tracker) relative(r *Result, fit LineFit, volatility, rising, cost float64) {
	t.costs.Add(cost)
	r.ScaledVolatility = volatility * cost
	r.TrendWeight, r.VolatilityWeight = 1, 1
	r.NormalizedVolatility = t.noiseExcursion(fit, volatility, cost)
	if mean := math.Abs(fit.Mean); mean > 0 {
		r.NormalizedTrend = rising * fit.Span / mean
	}
	r.Threshold = t.cfg.MaxThreshold / (1 + r.NormalizedVolatility + r.NormalizedTrend)
	r.Threshold = math.Min(math.Max(r.Threshold, t.cfg.MinThreshold), t.cfg.MaxThreshold)
}

// noiseExcursion is z·σ_rel·c_rel: the window's noise about its robust line
// as a fraction of its mean demand, z standard deviations out, scaled by the
// per-request cost against its mean over the history (1 when constant).
func (t *Tracker) noiseExcursion(fit LineFit, volatility, cost float64) float64 {
	mean := math.Abs(fit.Mean)
	if mean == 0 {
		return 0
	}
	return t.cfg.z() * meanAbsToSigma * volatility / mean * t.costRelative(cost)
}

// Replay runs a fresh tracker over every window of the given length in a
// demand history, oldest first, and returns the result for the newest window.
// cost[i] is the per-request CPU cost at demand[i]; cost may be nil (unknown
// throughout). A history shorter than window is treated as one window.
// Windows with too few samples are skipped; when none can be fitted the result
// is the resting threshold with Fitted false.
//
// Replay is how a stateless service gets a threshold that depends only on
// the data: two scaler replicas, or one before and after a restart, that read
// the same history compute the same threshold.
func Replay(cfg Config, demand, cost []float64, window int) (Result, error) {
	if window < 1 {
		return Result{}, &FieldError{Field: "window", Value: window, Reason: "must be at least 1"}
	}
	if cost != nil && len(cost) != len(demand) {
		return Result{}, &FieldError{Field: "cost", Value: len(cost), Reason: "must have one value per demand sample"}
	}
	t, err := NewTracker(cfg)
	if err != nil {
		return Result{}, err
	}
	costAt := func(i int) float64 {
		if cost == nil {
			return math.NaN()
		}
		return cost[i]
	}
	first := max(min(window, len(demand))-1, 0)
	if cfg.keepsOnlyCosts() && ordinary(demand) {
		// The relative and lead normalisations keep nothing from earlier windows but
		// their per-request costs: the newest threshold is the newest
		// window's fit against the mean cost. So the earlier windows are
		// not fitted; only whether a fit would have succeeded (enough
		// finite samples) decides whether their cost is counted, exactly
		// as Update counts it. The answer is the full replay's, at a
		// fraction of its cost (every poll replays 240 windows by default).
		// fits[end]: the window ending at end has enough finite samples.
		fits := make([]bool, len(demand))
		finite, last := 0, -1
		for i := 0; i < first && i < len(demand); i++ {
			if isFinite(demand[i]) {
				finite++
			}
		}
		for end := first; end < len(demand); end++ {
			if isFinite(demand[end]) {
				finite++
			}
			if start := end - window; start >= 0 && isFinite(demand[start]) {
				finite--
			}
			if fits[end] = finite >= max(cfg.RANSAC.MinSamples, 2); fits[end] {
				last = end
			}
		}
		// The result is the last window that fits (a newer one that does
		// not leaves it standing, as in Update).
		for end := first; end < last; end++ {
			if fits[end] {
				t.countCost(costAt(end))
			}
		}
		if last >= 0 {
			if _, err := t.Update(demand[max(0, last-window+1):last+1], costAt(last)); err != nil && !errors.Is(err, ErrInsufficientData) {
				return Result{}, err
			}
		}
		return t.Last(), nil
	}
	return replayEveryWindow(t, demand, costAt, first, window)
}

// keepsOnlyCosts reports whether a tracker carries nothing from window to
// window but the per-request costs (the relative and lead normalisations).
func (c Config) keepsOnlyCosts() bool {
	return c.Mode == ModeARTT && (c.Normalization == NormalizationRelative || c.Normalization == NormalizationLead)
}

// replayEveryWindow updates the tracker with every window in turn.
func replayEveryWindow(t *Tracker, demand []float64, costAt func(int) float64, first, window int) (Result, error) {
	for end := first; end < len(demand); end++ {
		if _, err := t.Update(demand[max(0, end-window+1):end+1], costAt(end)); err != nil && !errors.Is(err, ErrInsufficientData) {
			return Result{}, err
		}
	}
	return t.Last(), nil
}

// countCost is what Update does with a window's cost in the relative
// normalisation when the window's fit succeeds.
func (t *Tracker) countCost(costPerRequest float64) {
	if costPerRequest > 0 && !math.IsInf(costPerRequest, 0) {
		t.lastCost = costPerRequest
	}
	cost := t.lastCost
	if cost == 0 {
		cost = 1
	}
	t.costs.Add(cost)
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// ordinary reports whether no sample is large enough for a window's fit to
// overflow float64 arithmetic (and so fail although its samples are finite).
func ordinary(demand []float64) bool {
	for _, x := range demand {
		if math.Abs(x) > 1e100 {
			return false
		}
	}
	return true
}

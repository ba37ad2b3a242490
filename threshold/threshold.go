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
	// CalendarPeriods is how many earlier periods a calendar forecast
	// found at now (NormalizationCalendar; 0 while it has none and the
	// threshold is NormalizationLead's).
	CalendarPeriods int
}

// Tracker computes a threshold per window of demand, carrying the
// normalisation's state from one window to the next. It is not safe for
// concurrent use; it holds no other state, so two trackers fed the same
// windows agree bit for bit.
type Tracker struct {
	cfg Config
	// normalizer turns each fitted window into the threshold: the
	// configured mode's and normalisation's, one of normalizers (nil in
	// ModeStatic).
	normalizer  normalizer
	normalizers normalizers
	lastCost    float64
	// costs is the history of per-request costs, against which a window's
	// cost is relative.
	costs stats.Welford
	last  Result
}

// NewTracker validates cfg and returns an empty tracker.
func NewTracker(cfg Config) (*Tracker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Tracker{cfg: cfg, last: Result{Threshold: restingThreshold(cfg), Mode: cfg.Mode}}
	if cfg.Mode != ModeStatic {
		t.normalizer = t.normalizers.pick(&t.cfg)
	}
	return t, nil
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
	// Finite samples near ±1e308 overflow the fit's sums and the
	// normalisations' differences: such a window says nothing usable, like
	// one with too few samples. No demand or cost comes near 1e100.
	if !ordinary(window) {
		return t.last, fmt.Errorf("%w: a sample beyond ±1e100 overflows the arithmetic", ErrInsufficientData)
	}
	fit, err := FitLineRANSAC(window, t.cfg.RANSAC)
	if err != nil {
		return t.last, err
	}
	w := fitted{samples: window, fit: fit, cost: t.countCost(costPerRequest)}
	w.costRel = t.costRelative(w.cost)
	w.volatility, w.rising = beyondDeadband(fit, t.cfg.Deadband)
	r := Result{
		Mode:           t.cfg.Mode,
		Fitted:         true,
		Trend:          fit.Slope,
		Volatility:     fit.MeanAbsResidual,
		CostPerRequest: w.cost,
		Inliers:        fit.Inliers,
		Samples:        fit.Samples,
	}
	r = t.normalizer.target(r, w)
	t.last = r
	return r, nil
}

// beyondDeadband is the fit's volatility and rising trend, each 0 where
// it is within the deadband: below it, changes are measurement noise, not
// demand.
func beyondDeadband(fit LineFit, deadband float64) (volatility, rising float64) {
	band := deadband * math.Abs(fit.Mean)
	volatility = fit.MeanAbsResidual
	if volatility <= band {
		volatility = 0
	}
	rising = math.Max(fit.Slope, 0)
	if rising*fit.Span <= band {
		rising = 0
	}
	return volatility, rising
}

// costRelative is the per-request cost against its mean over the history
// (1 when unknown or constant).
func (t *Tracker) costRelative(cost float64) float64 {
	if m := t.costs.Mean(); m > 0 {
		return cost / m
	}
	return 1
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
// window but the per-request costs (every normalisation but the paper's).
func (c Config) keepsOnlyCosts() bool {
	return c.Mode == ModeARTT && c.Normalization != NormalizationWelford
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

// countCost counts a fitted window's per-request cost into the history
// and returns the cost the window is judged at: the last valid one, 1 when
// none was.
func (t *Tracker) countCost(costPerRequest float64) float64 {
	if costPerRequest > 0 && !math.IsInf(costPerRequest, 0) {
		t.lastCost = costPerRequest
	}
	cost := t.lastCost
	if cost == 0 {
		cost = 1
	}
	t.costs.Add(cost)
	return cost
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// ordinary reports whether no finite sample is large enough to overflow
// float64 arithmetic in a fit or a normalisation (infinities are missing
// samples, as NaN is).
func ordinary(demand []float64) bool {
	for _, x := range demand {
		if isFinite(x) && math.Abs(x) > 1e100 {
			return false
		}
	}
	return true
}

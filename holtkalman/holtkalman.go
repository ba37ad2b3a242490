package holtkalman

import "math"

// Noise is the Kalman filter's noise model. Every variance is
// relative: a fraction² of the current level (at least minScale), because
// the observation, utilisation per unit share, grows with the number of
// replicas while its relative noise does not.
type Noise struct {
	LevelNoise, TrendNoise float64
	InitialNoise, MinNoise float64
	ResidualWeight         float64
}

// DefaultNoise is the noise model both ARTT's forecasts use: a level that
// moves about 3% per interval and a trend about 1%.
func DefaultNoise() Noise {
	return Noise{LevelNoise: 1e-3, TrendNoise: 1e-4, InitialNoise: 1e-2, MinNoise: 1e-4, ResidualWeight: 0.2}
}

// minScale is the level below which variances stop shrinking (the share
// estimator's utilisation floor): an idle replica's filter stays responsive.
const minScale = 0.01

// Filter is Holt's smoothing with Kalman-tuned factors for one series.
type Filter struct {
	level, trend float64
	p            [2][2]float64
	r            float64
	// bias is an EWMA of the residuals: noise averages out, a lasting change
	// of level does not.
	bias        float64
	n           int
	alpha, beta float64
	// gate is the outlier gate's state: 0, ±1 when the last observation,
	// above (+) or below (−) the forecast, was set aside, ±2 while the
	// filter follows a shift on that side (see admit).
	gate int8
}

// Outlier gate: an observation further than gateSigmas standard deviations
// of the predicted innovation from the forecast, once the filter has seen
// gateAfter observations (its residual variance has then seen four
// residuals), is set aside if it stands alone. 4σ sets aside one in 16,000
// samples of Gaussian noise.
const (
	gateSigmas = 4
	gateAfter  = 5
)

// Observations is how many observations the filter has seen.
func (f *Filter) Observations() int { return f.n }

// Factors are the Holt factors α and β of the last update.
func (f *Filter) Factors() (alpha, beta float64) { return f.alpha, f.beta }

// Forecast is the one-step-ahead forecast ℓ + b (NaN before any observation).
func (f *Filter) Forecast() float64 {
	if f.n == 0 {
		return math.NaN()
	}
	return f.level + f.trend
}

// Trend is the filtered trend b, the change per interval (NaN before any
// observation).
func (f *Filter) Trend() float64 {
	if f.n == 0 {
		return math.NaN()
	}
	return f.trend
}

// Update folds observation y into the filter. A sample too large to
// square (a broken metric, not load: utilisation per share beyond 1e154)
// would overflow the variances and leave the filter forecasting NaN for the
// rest of the replica's life. So an update that would leave anything
// non-finite is not applied: the filter starts again from y, or, when y
// cannot start one either, skips the interval.
func (f *Filter) Update(y float64, cfg Noise) {
	if !f.admit(y, cfg) {
		f.Skip(cfg)
		return
	}
	if f.n > 0 {
		next := *f
		next.correct(y, cfg)
		if next.finite() {
			*f = next
			return
		}
	}
	restart := Filter{}
	restart.start(y, cfg)
	if restart.finite() {
		*f = restart
		return
	}
	f.Skip(cfg)
}

// admit decides whether y updates the filter or is set aside as a lone
// outlier: a replica whose request count dipped for one interval (a
// readiness blip) reports its CPU over a tiny share, and a burst of
// garbage collection or a scrape glitch moves one sample too. Followed, one
// sample ten times the level left the forecast near three times it thirty
// intervals later: the residual variance it inflated makes the filter
// distrust the samples that would bring it back. A lone outlier is set
// aside, but never two samples in a row: the second is a shift (or noise
// wider than the filter thought) and is followed, and so is every later
// sample on the same side, until one falls within the gate.
func (f *Filter) admit(y float64, cfg Noise) bool {
	if f.n < gateAfter {
		return true
	}
	l, p00 := f.predicted(cfg)
	e := y - l
	innovation := p00 + f.r
	side := int8(1)
	if e < 0 {
		side = -1
	}
	switch {
	case !(math.Abs(e) > gateSigmas*math.Sqrt(innovation)):
		f.gate = 0
	case f.gate == 0 || f.gate == -2*side:
		f.gate = side
		return false
	default:
		f.gate = 2 * side
	}
	return true
}

// start makes y the filter's first observation.
func (f *Filter) start(y float64, cfg Noise) {
	sc := scale(y)
	f.level, f.trend, f.bias = y, 0, 0
	f.r = cfg.InitialNoise * sc
	f.p = [2][2]float64{{cfg.InitialNoise * sc, 0}, {0, 10 * cfg.TrendNoise * sc}}
	f.n, f.alpha, f.beta = 1, 1, 0
}

// correct is one Kalman step of a started filter: predict, then update
// with y.
func (f *Filter) correct(y float64, cfg Noise) {
	// Predict: x⁻ = F x, P⁻ = F P Fᵀ + Q with F = [[1 1] [0 1]]. The level's
	// process noise grows by bias²: residuals that keep one sign are the
	// level moving, which the model must follow, not noise to smooth away.
	l, p00 := f.predicted(cfg)
	b, sc := f.trend, scale(l)
	p01 := f.p[0][1] + f.p[1][1]
	p10 := f.p[1][0] + f.p[1][1]
	p11 := f.p[1][1] + cfg.TrendNoise*sc

	// Update with H = [1 0].
	e := y - l
	s := p00 + f.r
	k0, k1 := p00/s, p10/s
	f.level, f.trend = l+k0*e, b+k1*e
	f.p = [2][2]float64{
		{(1 - k0) * p00, (1 - k0) * p01},
		{p10 - k1*p00, p11 - k1*p01},
	}
	f.alpha = k0
	if k0 > 0 {
		f.beta = k1 / k0
	}
	// Measurement noise follows an EWMA of the squared residuals about their
	// own mean (the bias), so a level shift raises the process noise above,
	// not the measurement noise, and the filter follows it instead of
	// freezing.
	w := cfg.ResidualWeight
	f.bias = (1-w)*f.bias + w*e
	d := e - f.bias
	f.r = math.Max(cfg.MinNoise*sc, (1-w)*f.r+w*d*d)
	f.n++
}

// predicted is the one-step forecast ℓ + b and its variance P⁻₀₀, whose
// process noise grows by bias² (see correct).
func (f *Filter) predicted(cfg Noise) (l, p00 float64) {
	l = f.level + f.trend
	return l, f.p[0][0] + f.p[0][1] + f.p[1][0] + f.p[1][1] + cfg.LevelNoise*scale(l) + f.bias*f.bias
}

// scale is the level's square, at least minScale².
func scale(level float64) float64 {
	v := math.Max(math.Abs(level), minScale)
	return v * v
}

// Observe updates the filter with y, or skips the interval when y is NaN or
// infinite (a sample that is missing).
func (f *Filter) Observe(y float64, cfg Noise) {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		f.Skip(cfg)
		return
	}
	f.Update(y, cfg)
}

// Skip advances the filter one interval without an observation: the
// forecast moves on and its uncertainty grows.
func (f *Filter) Skip(cfg Noise) {
	if f.n == 0 {
		return
	}
	f.level += f.trend
	sc := scale(f.level)
	f.p = [2][2]float64{
		{f.p[0][0] + f.p[0][1] + f.p[1][0] + f.p[1][1] + cfg.LevelNoise*sc, f.p[0][1] + f.p[1][1]},
		{f.p[1][0] + f.p[1][1], f.p[1][1] + cfg.TrendNoise*sc},
	}
	if !f.finite() {
		*f = Filter{} // grown past the float range: the next observation starts it again
	}
}

// finite reports whether every number of the filter's state is finite.
func (f *Filter) finite() bool {
	sum := f.level + f.trend + f.r + f.bias + f.alpha + f.beta
	for _, row := range f.p {
		sum += row[0] + row[1]
	}
	// A sum of finite numbers can still overflow; then one of them is near
	// the float range's end, which is as unusable.
	return !math.IsNaN(sum) && !math.IsInf(sum, 0)
}

// Scaled returns a copy with level and trend multiplied by k (and the
// variances by k², as they are relative to the level), or an unstarted
// filter when that overflows (a node cost ratio near the float range's end).
func (f Filter) Scaled(k float64) Filter {
	f.level *= k
	f.trend *= k
	f.bias *= k
	f.r *= k * k
	for i := range f.p {
		for j := range f.p[i] {
			f.p[i][j] *= k * k
		}
	}
	if !f.finite() {
		return Filter{}
	}
	f.gate = 0 // an outlier the original set aside is not the copy's
	return f
}

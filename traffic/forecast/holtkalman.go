package forecast

import "math"

// NoiseConfig is the Kalman filter's noise model. Every variance is
// relative: a fraction² of the current level (at least minScale), because
// the observation, utilisation per unit share, grows with the number of
// replicas while its relative noise does not.
type NoiseConfig struct {
	LevelNoise, TrendNoise float64
	InitialNoise, MinNoise float64
	ResidualWeight         float64
}

// minScale is the level below which variances stop shrinking (the share
// estimator's utilisation floor): an idle replica's filter stays responsive.
const minScale = 0.01

// Filter is Holt's smoothing with Kalman-tuned factors for one replica.
type Filter struct {
	level, trend float64
	p            [2][2]float64
	r            float64
	// bias is an EWMA of the residuals: noise averages out, a lasting change
	// of level does not.
	bias        float64
	n           int
	alpha, beta float64
}

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

// Update folds observation y into the filter.
func (f *Filter) Update(y float64, cfg NoiseConfig) {
	if f.n == 0 {
		sc := scale(y)
		f.level, f.trend, f.bias = y, 0, 0
		f.r = cfg.InitialNoise * sc
		f.p = [2][2]float64{{cfg.InitialNoise * sc, 0}, {0, 10 * cfg.TrendNoise * sc}}
		f.n, f.alpha, f.beta = 1, 1, 0
		return
	}
	// Predict: x⁻ = F x, P⁻ = F P Fᵀ + Q with F = [[1 1] [0 1]]. The level's
	// process noise grows by bias²: residuals that keep one sign are the
	// level moving, which the model must follow, not noise to smooth away.
	l, b := f.level+f.trend, f.trend
	sc := scale(l)
	p00 := f.p[0][0] + f.p[0][1] + f.p[1][0] + f.p[1][1] + cfg.LevelNoise*sc + f.bias*f.bias
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

// scale is the level's square, at least minScale².
func scale(level float64) float64 {
	v := math.Max(math.Abs(level), minScale)
	return v * v
}

// Skip advances the filter one interval without an observation: the
// forecast moves on and its uncertainty grows.
func (f *Filter) Skip(cfg NoiseConfig) {
	if f.n == 0 {
		return
	}
	f.level += f.trend
	sc := scale(f.level)
	f.p = [2][2]float64{
		{f.p[0][0] + f.p[0][1] + f.p[1][0] + f.p[1][1] + cfg.LevelNoise*sc, f.p[0][1] + f.p[1][1]},
		{f.p[1][0] + f.p[1][1], f.p[1][1] + cfg.TrendNoise*sc},
	}
}

// scaled returns a copy with level and trend multiplied by k (and the
// variances by k², as they are relative to the level).
func (f Filter) scaled(k float64) Filter {
	f.level *= k
	f.trend *= k
	f.bias *= k
	f.r *= k * k
	for i := range f.p {
		for j := range f.p[i] {
			f.p[i][j] *= k * k
		}
	}
	return f
}

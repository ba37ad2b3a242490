package forecast

import "math"

// NoiseConfig is the Kalman filter's noise model.
type NoiseConfig struct {
	LevelNoise, TrendNoise float64
	InitialNoise, MinNoise float64
	ResidualWeight         float64
}

// Filter is Holt's smoothing with Kalman-tuned factors for one replica.
type Filter struct {
	level, trend float64
	p            [2][2]float64
	r            float64
	n            int
	alpha, beta  float64
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
		f.level, f.trend = y, 0
		f.r = cfg.InitialNoise
		f.p = [2][2]float64{{cfg.InitialNoise, 0}, {0, 10 * cfg.TrendNoise}}
		f.n, f.alpha, f.beta = 1, 1, 0
		return
	}
	// Predict: x⁻ = F x, P⁻ = F P Fᵀ + Q with F = [[1 1] [0 1]].
	l, b := f.level+f.trend, f.trend
	p00 := f.p[0][0] + f.p[0][1] + f.p[1][0] + f.p[1][1] + cfg.LevelNoise
	p01 := f.p[0][1] + f.p[1][1]
	p10 := f.p[1][0] + f.p[1][1]
	p11 := f.p[1][1] + cfg.TrendNoise

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
	// Measurement noise follows an EWMA of the squared residuals.
	f.r = math.Max(cfg.MinNoise, (1-cfg.ResidualWeight)*f.r+cfg.ResidualWeight*e*e)
	f.n++
}

// Skip advances the filter one interval without an observation: the
// forecast moves on and its uncertainty grows.
func (f *Filter) Skip(cfg NoiseConfig) {
	if f.n == 0 {
		return
	}
	f.level += f.trend
	f.p = [2][2]float64{
		{f.p[0][0] + f.p[0][1] + f.p[1][0] + f.p[1][1] + cfg.LevelNoise, f.p[0][1] + f.p[1][1]},
		{f.p[1][0] + f.p[1][1], f.p[1][1] + cfg.TrendNoise},
	}
}

// scaled returns a copy with level and trend multiplied by k.
func (f Filter) scaled(k float64) Filter {
	f.level *= k
	f.trend *= k
	return f
}

// Package holtkalman is Holt's linear smoothing with its factors tuned by a
// Kalman filter: a level and a trend that follow a noisy series, smooth
// where it is noisy and quick where it is calm. artt-traffic forecasts each
// replica's load with it (package traffic/forecast), and artt-scaler's
// threshold reads a demand's trend and forecast from it (package threshold).
//
// Holt's double exponential smoothing keeps a level ℓ and a trend b and
// forecasts ℓ + b. It is the steady state of a Kalman filter on the local
// linear trend model x = [ℓ, b], x' = [[1 1] [0 1]]·x + w, y = ℓ + v; running
// the filter itself gives time-varying factors: α = K₀ and β = K₁/K₀, where
// K is the Kalman gain computed from the prediction uncertainty P and the
// observation noise R. Every variance is relative to the level ℓ (times
// max(|ℓ|, 0.01)²), because what artt-traffic observes (utilisation per
// unit of traffic share) grows with the number of replicas while its
// relative noise does not; absolute variances would make the factors
// shrink as 1/N. Process noise is Q = diag(LevelNoise 1e-3,
// TrendNoise 1e-4) × ℓ² per interval (a level that moves about 3% per interval
// and a trend about 1%). R follows an EWMA (weight ResidualWeight 0.2) of the
// squared residuals about their own EWMA mean (the bias), floored at MinNoise
// (1e-4) × ℓ²: a noisy replica gets small factors (smooth), a calm one large
// factors (responsive). A residual that keeps its sign is not noise but the
// level moving (a node slowing down or recovering): the bias then grows, its
// square is added to the level's process noise, and the filter follows the
// shift within a few intervals instead of mistaking it for noise and
// freezing.
//
// A lone outlier is set aside (Filter.admit): once the filter has seen five
// observations, a sample more than 4 standard deviations of the predicted
// innovation (P₀₀ + R) from the forecast skips the interval instead of
// updating it, unless the sample before it was set aside too. In
// artt-traffic, a replica whose request count dips for one interval reports
// its CPU over a tiny share, ten times its level or more; followed, one such sample left the
// forecast near three times the level thirty intervals later, because the
// residual variance it inflated made the filter distrust the samples that
// would bring it back. Two outliers in a row are a shift and are followed,
// and so is every later sample on their side until one falls within the
// gate: a real shift is followed one interval later than without the gate.
// An update that would overflow (a sample beyond 1e154) is never applied. Observe skips an interval whose
// sample is missing (NaN) instead of updating it.
package holtkalman

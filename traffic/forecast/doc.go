// Package forecast is ARTT's traffic-share estimator: it forecasts each
// replica's next-interval CPU utilisation and moves traffic shares toward
// equal utilisation in bounded steps.
//
// # Holt smoothing tuned by a Kalman filter (holtkalman.go)
//
// Holt's double exponential smoothing keeps a level ℓ and a trend b and
// forecasts ℓ + b. It is the steady state of a Kalman filter on the local
// linear trend model x = [ℓ, b], x' = [[1 1] [0 1]]·x + w, y = ℓ + v; running
// the filter itself gives time-varying factors: α = K₀ and β = K₁/K₀, where
// K is the Kalman gain computed from the prediction uncertainty P and the
// observation noise R. Every variance is relative to the level ℓ (times
// max(|ℓ|, 0.01)²), because the observation below grows with the number of
// replicas while its relative noise does not; absolute variances would make
// the factors shrink as 1/N. Process noise is Q = diag(LevelNoise 1e-3,
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
// updating it, unless the sample before it was set aside too. A replica
// whose request count dips for one interval reports its CPU over a tiny
// share, ten times its level or more; followed, one such sample left the
// forecast near three times the level thirty intervals later, because the
// residual variance it inflated made the filter distrust the samples that
// would bring it back. Two outliers in a row are a shift and are followed,
// and so is every later sample on their side until one falls within the
// gate: a real shift is followed one interval later than without the gate.
// An update that would overflow (a sample beyond 1e154) is never applied.
//
// What is forecast is each replica's utilisation per unit of traffic share,
// ℓ = (CPU ÷ CPU limit) ÷ (its requests ÷ the component's requests). Raw
// utilisation would follow the shares ARTT itself sets, and Holt's trend
// would then extrapolate ARTT's own last step and make it oscillate; ℓ moves
// only with demand, node speed and contention. The forecast utilisation of a
// replica at share w is ℓ̂ · w. Without request counts the filter skips the
// interval (its forecast carries on, its uncertainty grows); a replica whose
// count alone is missing skips alone, its traffic counted at its last share.
//
// Every replica keeps at least MinShare (0.1) × the fair share 1/N: a share
// rounded to 0% in Istio would get no requests, so no observations, and its
// forecast could never recover.
//
// # Bounded shifts (shift.go)
//
// The shares that equalise forecast utilisation are w*ᵣ ∝ 1/ℓ̂ᵣ. Applying
// that step at once overshoots when utilisation is not quite proportional to
// share, so the log-step is passed through a sigmoid (tanh):
//
//	w'ᵣ ∝ wᵣ · exp(B · tanh(ln(w*ᵣ/wᵣ) / B)),  B = ln(1 + MaxStep)
//
// Small imbalances are corrected in one cycle (tanh x ≈ x); a large one
// moves a share by at most a factor 1 + MaxStep (0.5) per cycle, so overload
// cannot swing to the other side. ℓ̂ is floored at UtilizationFloor (0.01).
//
// # Warm start (in Forecaster.Estimate, forecaster.go)
//
// A new replica has no history. It starts from a reference replica of the
// same component with at least MinHistory (5) observations: one on the same
// node if there is one (same speed), else the one with the longest history,
// ties by name. Its filter state is copied, with level and trend scaled by
// the ratio of the per-request CPU cost measured on the new replica's node to
// that on the reference's node (for this component, this interval), so a
// slower node starts with a proportionally higher forecast; the ratio is 1
// when either cost is unknown. Its share starts at the mean share of the
// component's existing replicas, not at zero.
package forecast

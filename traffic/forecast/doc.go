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
// observation noise R. Process noise is Q = diag(LevelNoise 1e-3, TrendNoise
// 1e-4) in utilisation² per interval. R follows an EWMA (weight
// ResidualWeight 0.2) of recent squared prediction residuals, floored at
// MinNoise (1e-4): a noisy replica gets small factors (smooth), a calm one
// large factors (responsive), and after a long quiet history a change in
// noise still moves R. Utilisation is CPU ÷ CPU limit.
//
// # Bounded shifts (shift.go)
//
// If utilisation is proportional to traffic share over capacity, the shares
// that equalise utilisation are w*ᵣ = wᵣ·ū/fᵣ, with fᵣ the forecast and
// ū = Σw / Σ(w/f) the utilisation all replicas would have when balanced.
// Applying that step at once overshoots when the proportionality is rough,
// so the log-step is passed through a sigmoid (tanh):
//
//	w'ᵣ ∝ wᵣ · exp(B · tanh(ln(ū/fᵣ) / B)),  B = ln(1 + MaxStep)
//
// Small imbalances are corrected in one cycle (tanh x ≈ x); a large one
// moves a share by at most a factor 1 + MaxStep (0.5) per cycle, so overload
// cannot swing to the other side. Forecasts are floored at UtilizationFloor
// (0.01) so an idle replica's share grows by the bounded step, not without
// limit.
//
// # Warm start (warmstart.go)
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

// Package forecast is ARTT's traffic-share estimator: it forecasts each
// replica's next-interval CPU utilisation and moves traffic shares toward
// equal utilisation in bounded steps.
//
// # Forecast (forecaster.go)
//
// Each replica's load is forecast by package holtkalman's filter: Holt's
// smoothing whose factors a Kalman filter tunes.
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

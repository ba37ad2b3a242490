// Package threshold computes ARTT-HPA's adaptive scaling threshold: the CPU
// utilisation above which a workload should scale out, lowered when demand
// climbs steadily or fluctuates and raised back when it is calm. It is the
// pure core behind artt-scaler and artt-lab: no I/O, no clock, no global
// state; the same inputs and seed give the same result bit for bit.
//
// # Inputs
//
// A window of W demand samples y₀…y_{W−1} taken at equal intervals (the
// scaler uses the request rate), oldest first, NaN for a missing sample, and
// the component's per-request CPU cost c (CPU seconds per request).
//
// # Trend and volatility: RANSAC with a residual-scale cutoff
//
// FitLineRANSAC fits y = a + b·x with x the sample index. A sample is an
// inlier when |y − (a + b·x)| ≤ k · 1.4826 · r̃, with r̃ the median absolute
// residual about a first-pass line and k = MADMultiplier (default 2.5, the
// "moderately conservative" rule of Leys et al., 2013). The scale is that of
// the noise around the trend: the demand's own MAD, k · 1.4826 · MAD(y), only
// seeds the first pass, because it grows with the slope (about 36 × slope at
// W = 40) and would admit bursts on a ramp. Candidate lines go through random
// pairs drawn from a PCG source seeded with Seed (default 1), at most
// MaxIterations (100) of them, stopping early once an all-inlier pair has
// been drawn with probability Confidence (0.99); windows small enough to try
// every pair try every pair. Each pass refits its best line's consensus set
// by least squares.
//
//	trend      T = b                     (demand change per sample)
//	volatility V = mean |residual| over the inliers
//
// Volatility is taken over the inliers, not over every sample, so a single
// burst, which RANSAC rejects, moves neither signal: ARTT reacts to a burst
// through utilisation alone, as a fixed target would, and not a second time
// through its threshold. Sustained fluctuation stays inside the cutoff and
// does count.
//
// # Deadband
//
// Normalising a signal against its own history makes it scale-free: even a
// perfectly steady workload's rounding noise would normalise to order 1. So
// volatility at or below Deadband × mean(window) (default 1%), and a rising
// trend whose drift across the window, T·(W−1), is at or below the same
// amount, count as 0.
//
// # Per-request CPU cost
//
// In ModeARTT the volatility is scaled: V′ = V · c. The same swing in demand
// costs more CPU where requests are more expensive (slower nodes), so it
// lowers the threshold more. Because V′ is normalised against its own history
// (below), what moves the threshold is c relative to the cost in that history:
// replicas moving to slower nodes, or a node slowing down. ModeLARE, the
// LARE-HPA baseline, uses V unscaled.
//
// # Normalisation: headroom for the lead time (default), a deviation from the paper
//
// A threshold is headroom: room for demand to rise before new replicas
// serve it, one HPA sync plus pod startup later (Lead samples, from the
// trigger's leadTime). NormalizationLead asks for exactly that room and no
// more: the noise's peaks and the climb expected within the lead time stay
// under Ceiling (100, the CPU request the scheduler guarantees):
//
//	σ_rel     = 1.2533 · V ÷ mean(window)   (the noise, from the mean |residual|)
//	climb_rel = the rise expected within Lead samples ÷ the newest sample
//	θ = min(MaxThreshold, Ceiling ÷ (1 + z·σ_rel·c_rel + climb_rel)), at least MinThreshold
//
// The climb is the larger of the newest ⌈Lead⌉ samples' climb carried on for
// Lead samples, which sees a step at the first sample that shows it, and the
// trend of a Holt filter whose factors a Kalman filter tunes (package
// holtkalman, the filter artt-traffic runs per replica) over the window,
// which follows a ramp through noise. A fall counts as no climb. The window's
// robust trend is not used for it: it treats a step's first samples as
// outliers, which is exactly wrong at an onset. Steady demand runs at
// MaxThreshold: ordinary noise (z·σ_rel under 1/0.8 − 1 = 25% at the
// defaults) fits in the room MaxThreshold already leaves below the request,
// and the cost saved in calm pays for the headroom a burst gets.
//
// # Normalisation: a forecast and its own error
//
// NormalizationPredictive asks for the room a forecast of the demand says
// new replicas will need, with the forecast's measured misses as the
// margin. The Holt filter (the same Kalman-tuned one) runs over the window;
// after each sample it forecasts k = ⌈Lead⌉ samples ahead, and k samples
// later that forecast's error is known:
//
//	ŷ   = ℓ + k·b after the newest sample
//	e_q = the Quantile-th of the window's errors y_{i+k} − ŷ_i (at least 0; 0 until WarmUp are known)
//	θ = Ceiling × y_now ÷ (ŷ + e_q), within [MinThreshold, MaxThreshold]
//
// A step stays in the errors for as long as it stays in the window, so the
// threshold keeps room for another step like it for that long; a forecast
// of falling demand rests at MaxThreshold.
//
// # Normalisation: a calendar and its own error
//
// NormalizationCalendar is for demand that recurs (a trading session, a
// day): a Calendar reads a longer history at a coarser step, the same
// phase of up to Periods earlier periods, and forecasts the highest demand
// within the lead as the demand now plus the median profile's rise over
// the lead. Its own misses over that history are its headroom, and
// Config.CalendarThreshold turns both into θ = Ceiling × y ÷ (ŷ + e_q),
// at most MaxThreshold and at least CalendarFloor: a forecast level, not a
// window's noise, so MinThreshold does not bound it. Until the history
// holds an earlier period the threshold is NormalizationLead's.
//
// # Normalisation: relative headroom over the window
//
// The paper normalises each signal against its own history (below). That
// makes the signals scale-free: a workload's ordinary stationary noise maps
// to about μ/(μ + z·σ) ≈ 0.8 of its bound whatever its size, so θ reflects
// the incidental past (a flat workload with 3% noise gets θ ≈ 55, the same
// workload after a step 70 minutes earlier θ = 80) rather than how volatile
// or trending the workload is. NormalizationRelative keeps the paper's intent
// in absolute terms, both signals as fractions of the window's mean demand m:
//
//	σ_rel     = 1.2533 · V ÷ m        (the noise's standard deviation, from the mean |residual|)
//	c_rel     = c ÷ mean(c over the history)   (1 when the per-request cost is constant)
//	drift_rel = max(T, 0) · (W − 1) ÷ m        (the climb across the window)
//	θ = MaxThreshold ÷ (1 + z·σ_rel·c_rel + drift_rel), clamped to [MinThreshold, MaxThreshold]
//
// which is the target that keeps the window's likely peaks (z = Φ⁻¹(Quantile)
// standard deviations, plus the climb) under MaxThreshold. A steady workload
// with 3% noise gets θ ≈ MaxThreshold ÷ 1.06 whatever its past; one whose
// noise is 20% of its level, or that doubles across the window, gets
// MinThreshold. The two excursions add (no R² weights): a clean climb has no
// residual noise and flat noise has no climb, so neither is counted twice.
// Select it with Normalization "relative", the paper's with "welford"
// (trigger metadata normalization); ModeLARE, the baseline, always uses the
// paper's.
//
// # Normalisation (the paper's): Welford bounds with an outlier interval
//
// Each signal keeps Welford's running mean μ and standard deviation σ of the
// values it admitted. A value x is admitted only while it lies in
// μ ± z·σ, z = Φ⁻¹(Quantile) (default Quantile 0.975, z ≈ 1.96); the first
// WarmUp (5) values are always admitted. Two exceptions keep the filter from
// freezing: while σ = 0 (equal values so far, as the deadband's zeros are)
// every value is admitted, since a zero-width interval cannot tell an outlier;
// and WarmUp outliers in a row on one side are a lasting change of regime, so
// they and the following ones on that side are admitted until a value falls
// back inside. The lower normalisation bound is
// fixed at 0 and the upper bound is U = μ + z·σ; the normalised value is
// n = clamp(x / U, 0, 1). Volatility's lower bound of 0 is the paper's rule.
// For the trend, only the rising part max(T, 0) is tracked and normalised,
// also against a lower bound of 0: a falling trend is no reason to scale out,
// and the HPA already scales in on utilisation. A steady climb therefore
// normalises to 1 (its slope equals its own upper bound), where a min–max
// normalisation would map it to the middle of its own history.
//
// # Dynamic weights
//
// The trend weight is the coefficient of determination of the fitted line
// over its inliers, w_T = R² ∈ [0, 1], and w_V = 1 − w_T. R² is the share of
// the window's variation that the trend explains, so a clean climb is judged
// by its trend and a flat, noisy window by its volatility, with no constant
// to tune.
//
// # Threshold
//
//	pressure  s = w_T·n_T + w_V·n_V            ∈ [0, 1]
//	threshold θ = Max − (Max − Min) · s        ∈ [MinThreshold, MaxThreshold]
//
// Defaults: MinThreshold 50, MaxThreshold 80 (percent of the CPU request).
// ModeStatic returns StaticThreshold (70) always. Before any window can be
// fitted the threshold rests at MaxThreshold.
//
// # State
//
// A Tracker carries the bounds from window to window. Replay runs a fresh
// Tracker over a whole history, which is how artt-scaler stays stateless:
// replicas that read the same history agree. In every normalisation but the
// paper's the only state is the running mean of the per-request cost, so
// Replay fits just the newest window that fits and counts the others'
// costs: the same answer, at the cost of one fit instead of one per
// window.
package threshold

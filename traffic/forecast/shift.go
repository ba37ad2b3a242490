package forecast

import "math"

// boundedShift moves shares toward the shares that equalise forecast
// utilisation, each by at most a factor 1 + maxStep, and returns them
// normalised. loads are forecasts of utilisation per unit of share (NaN when
// unknown); utilisation at share w is then load × w, so the equalising shares
// are ∝ 1/load. Replicas with unknown load keep their share's proportion.
//
// The bound holds after normalising: each replica's sigmoid step gᵣ is
// scaled by the one factor c for which Σ wᵣ · clamp(c · gᵣ, 1/b, b) = 1
// (b = 1 + maxStep), found by bisection (the sum grows with c). Dividing by
// the sum instead would let one share fall by more than b when others rise.
func boundedShift(shares, loads []float64, maxStep, floor float64) []float64 {
	var knownShare, inverseSum float64
	for i, l := range loads {
		if !math.IsNaN(l) {
			knownShare += shares[i]
			inverseSum += 1 / math.Max(l, floor)
		}
	}
	bound := math.Log1p(maxStep)
	steps := make([]float64, len(shares))
	for i, w := range shares {
		steps[i] = 1
		if l := loads[i]; !math.IsNaN(l) && inverseSum > 0 {
			target := knownShare / math.Max(l, floor) / inverseSum
			steps[i] = math.Exp(bound * math.Tanh(math.Log(target/w)/bound))
		}
	}
	b := 1 + maxStep
	// One array serves all 60 bisection steps, and e^logC is taken once
	// per step, not once per share.
	out := make([]float64, len(shares))
	apply := func(logC float64) float64 {
		c, total := math.Exp(logC), 0.0
		for i, w := range shares {
			out[i] = w * math.Min(b, math.Max(1/b, c*steps[i]))
			total += out[i]
		}
		return total
	}
	want := 0.0
	for _, w := range shares {
		want += w
	}
	lo, hi := -2*bound, 2*bound // c·g spans [1/b², b²] ⊇ what clamping can use
	for range 60 {
		mid := (lo + hi) / 2
		if apply(mid) < want {
			lo = mid
		} else {
			hi = mid
		}
	}
	total := apply((lo + hi) / 2)
	for i := range out {
		out[i] /= total // a correction of rounding only
	}
	return out
}

// floorShares raises every share to at least minShare × the fair share
// 1/n, taking the difference from the shares above their floor in
// proportion to their excess, so the result still sums to 1. A replica
// whose share rounded to 0% in Istio would get no requests, so no
// observations, and its forecast could never recover.
func floorShares(shares []float64, minShare float64) []float64 {
	n := float64(len(shares))
	floor := minShare / n
	if floor <= 0 || minShare >= 1 {
		return shares
	}
	var deficit, excess float64
	for _, w := range shares {
		if w < floor {
			deficit += floor - w
		} else {
			excess += w - floor
		}
	}
	if deficit == 0 || excess <= 0 {
		return shares
	}
	out := make([]float64, len(shares))
	for i, w := range shares {
		if w < floor {
			out[i] = floor
		} else {
			out[i] = w - deficit*(w-floor)/excess
		}
	}
	return out
}

package forecast

import "math"

// boundedShift moves shares toward the shares that equalise forecast
// utilisation, each by at most a factor 1 + maxStep, and returns them
// normalised. loads are forecasts of utilisation per unit of share (NaN when
// unknown); utilisation at share w is then load × w, so the equalising shares
// are ∝ 1/load. Replicas with unknown load keep their share's proportion.
func boundedShift(shares, loads []float64, maxStep, floor float64) []float64 {
	var knownShare, inverseSum float64
	for i, l := range loads {
		if !math.IsNaN(l) {
			knownShare += shares[i]
			inverseSum += 1 / math.Max(l, floor)
		}
	}
	out := make([]float64, len(shares))
	bound := math.Log1p(maxStep)
	total := 0.0
	for i, w := range shares {
		out[i] = w
		if l := loads[i]; !math.IsNaN(l) && inverseSum > 0 {
			target := knownShare / math.Max(l, floor) / inverseSum
			step := math.Log(target / w)
			out[i] = w * math.Exp(bound*math.Tanh(step/bound))
		}
		total += out[i]
	}
	for i := range out {
		out[i] /= total
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

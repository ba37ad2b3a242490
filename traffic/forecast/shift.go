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

package forecast

import "math"

// boundedShift moves shares toward equal forecast utilisation, each by at
// most a factor 1 + maxStep, and returns them normalised. Replicas with a
// NaN forecast keep their share's proportion.
func boundedShift(shares, forecasts []float64, maxStep, floor float64) []float64 {
	var sumW, sumWoverF float64
	for i, f := range forecasts {
		if !math.IsNaN(f) {
			sumW += shares[i]
			sumWoverF += shares[i] / math.Max(f, floor)
		}
	}
	out := make([]float64, len(shares))
	bound := math.Log1p(maxStep)
	balanced := sumW / sumWoverF
	total := 0.0
	for i, w := range shares {
		out[i] = w
		if f := forecasts[i]; !math.IsNaN(f) && sumWoverF > 0 {
			step := math.Log(balanced / math.Max(f, floor))
			out[i] = w * math.Exp(bound*math.Tanh(step/bound))
		}
		total += out[i]
	}
	for i := range out {
		out[i] /= total
	}
	return out
}

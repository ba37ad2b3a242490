package threshold

import "github.com/artt-dev/artt/internal/stats"

// madToSigma scales a median absolute deviation to a consistent estimate of
// the standard deviation of normally distributed data (1/Φ⁻¹(3/4)).
const madToSigma = 1.4826

// median returns the median of xs, reordering scratch (which must have the
// same length) and leaving xs untouched.
func median(xs, scratch []float64) float64 {
	copy(scratch, xs)
	return stats.MedianInPlace(scratch)
}

// medianAbsoluteDeviation returns median(|x - median(x)|).
func medianAbsoluteDeviation(xs, scratch []float64) float64 {
	m := median(xs, scratch)
	for i, x := range xs {
		d := x - m
		if d < 0 {
			d = -d
		}
		scratch[i] = d
	}
	return stats.MedianInPlace(scratch)
}

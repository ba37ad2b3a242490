package threshold

import "slices"

// madToSigma scales a median absolute deviation to a consistent estimate of
// the standard deviation of normally distributed data (1/Φ⁻¹(3/4)).
const madToSigma = 1.4826

// median returns the median of xs, reordering scratch (which must have the
// same length) and leaving xs untouched.
func median(xs, scratch []float64) float64 {
	copy(scratch, xs)
	slices.Sort(scratch)
	n := len(scratch)
	if n%2 == 1 {
		return scratch[n/2]
	}
	return (scratch[n/2-1] + scratch[n/2]) / 2
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
	slices.Sort(scratch)
	n := len(scratch)
	if n%2 == 1 {
		return scratch[n/2]
	}
	return (scratch[n/2-1] + scratch[n/2]) / 2
}

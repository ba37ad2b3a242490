package threshold

import "math"

// upperBound turns a non-negative signal into a value in [0, 1] by dividing it
// by a moving upper bound, mean + z·sd of the values seen so far. The lower
// bound is fixed at 0. A value outside the interval mean ± z·sd is an outlier:
// it is still normalised (and clamps to 1 when large) but it does not enter
// the statistics, so one burst cannot stretch the bound and flatten every
// later value. The first warmUp values are always admitted, because an
// interval from fewer values means nothing.
type upperBound struct {
	stats  Welford
	z      float64
	warmUp int
}

// observe admits x into the statistics unless it is an outlier, and reports
// whether it was admitted.
func (b *upperBound) observe(x float64) bool {
	if b.stats.Count() >= b.warmUp {
		half := b.z * b.stats.StdDev()
		if math.Abs(x-b.stats.Mean()) > half {
			return false
		}
	}
	b.stats.Add(x)
	return true
}

// upper is the current upper normalisation bound, mean + z·sd.
func (b upperBound) upper() float64 {
	return b.stats.Mean() + b.z*b.stats.StdDev()
}

// normalize maps x onto [0, 1] against the current bound. With no history, or
// a bound of 0, any positive x counts as maximal and 0 as minimal.
func (b upperBound) normalize(x float64) float64 {
	if x <= 0 {
		return 0
	}
	u := b.upper()
	if u <= 0 {
		return 1
	}
	return math.Min(x/u, 1)
}

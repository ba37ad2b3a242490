package threshold

import (
	"math"

	"github.com/artt-dev/artt/internal/stats"
)

// upperBound turns a non-negative signal into a value in [0, 1] by dividing it
// by a moving upper bound, mean + z·sd of the values seen so far. The lower
// bound is fixed at 0. A value outside the interval mean ± z·sd is an outlier:
// it is still normalised (and clamps to 1 when large) but it does not enter
// the statistics, so one burst cannot stretch the bound and flatten every
// later value. The first warmUp values are always admitted, because an
// interval from fewer values means nothing.
//
// Two cases are not outliers. While the values seen have no spread (σ = 0,
// common for the trend, which the deadband stores as exactly 0), the
// interval has width 0 and cannot tell an outlier from the next ordinary
// value, so every value is admitted. And warmUp outliers in a row on the
// same side are a lasting change of regime, not a burst: the last of them
// is admitted, and so is every further one until a value falls back inside,
// so the bound learns a lasting rise in volatility instead of freezing
// below it. warmUp polls (75 s at the default 15 s step) is longer than a
// burst and shorter than the window.
type upperBound struct {
	stats  stats.Welford
	z      float64
	warmUp int
	// streak counts consecutive outliers on one side (+ above, − below).
	streak int
}

// observe admits x into the statistics unless it is an outlier, and reports
// whether it was admitted.
func (b *upperBound) observe(x float64) bool {
	if sd := b.stats.StdDev(); b.stats.Count() >= b.warmUp && sd > 0 {
		if d := x - b.stats.Mean(); math.Abs(d) > b.z*sd {
			side := 1
			if d < 0 {
				side = -1
			}
			if b.streak*side < 0 {
				b.streak = 0
			}
			b.streak += side
			if b.streak*side < b.warmUp {
				return false
			}
			b.stats.Add(x)
			return true
		}
	}
	b.streak = 0
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

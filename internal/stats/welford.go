package stats

import "math"

// Welford accumulates a running mean and variance in one pass with
// Welford's update (B. P. Welford, "Note on a method for calculating
// corrected sums of squares and products", Technometrics 4(3), 1962), which
// stays accurate where the naive sum-of-squares formula cancels
// catastrophically. The zero value is an empty accumulator.
type Welford struct {
	n    int
	mean float64
	m2   float64
}

// Add folds x into the running statistics.
func (w *Welford) Add(x float64) {
	w.n++
	delta := x - w.mean
	w.mean += delta / float64(w.n)
	w.m2 += delta * (x - w.mean)
}

// Count is the number of values added.
func (w Welford) Count() int { return w.n }

// Mean is the running mean, or 0 when nothing was added.
func (w Welford) Mean() float64 { return w.mean }

// Variance is the unbiased sample variance, or 0 with fewer than two values.
func (w Welford) Variance() float64 {
	if w.n < 2 {
		return 0
	}
	return w.m2 / float64(w.n-1)
}

// StdDev is the square root of Variance.
func (w Welford) StdDev() float64 { return math.Sqrt(w.Variance()) }

// Package stats holds the small statistics more than one part of ARTT
// needs, so each is written once.
package stats

import "slices"

// MedianInPlace is the median of a non-empty slice, which it sorts (the
// mean of the two middle values for an even length).
func MedianInPlace(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

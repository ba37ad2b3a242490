// Package stats holds the small statistics more than one part of ARTT
// needs, so each is written once.
package stats

import "slices"

// MedianInPlace is the median of a non-empty slice, which it reorders
// (the mean of the two middle values for an even length). It selects the
// middle elements (Hoare's quickselect, linear on average) instead of
// sorting: ARTT-HPA's fit takes several medians per window and every poll
// replays hundreds of windows, so this is most of artt-scaler's CPU. The value is
// the one sorting gives. A NaN has no place in an order, so then it sorts.
func MedianInPlace(a []float64) float64 {
	n := len(a)
	for _, x := range a {
		if x != x {
			slices.Sort(a)
			if n%2 == 1 {
				return a[n/2]
			}
			return (a[n/2-1] + a[n/2]) / 2
		}
	}
	hi := selectKth(a, n/2)
	if n%2 == 1 {
		return hi
	}
	// After the selection every element before n/2 is ≤ a[n/2]: the other
	// middle element is the largest of them.
	lo := a[0]
	for _, x := range a[1 : n/2] {
		lo = max(lo, x)
	}
	return (lo + hi) / 2
}

// selectKth reorders a so that a[k] is the element sorting would put
// there, everything before it ≤ and everything after it ≥, and returns
// a[k].
func selectKth(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		// Median of three as the pivot: sorted or constant windows (common
		// for demand) stay linear.
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		pivot := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

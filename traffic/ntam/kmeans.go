package ntam

import "slices"

// splitTwoMeans partitions values into a low and a high cluster with exact
// one-dimensional k-means for k = 2: in one dimension the optimal clusters
// are contiguous in sorted order, so trying every split point of the sorted
// values and keeping the one with the least within-cluster sum of squares
// finds the global optimum (no random restarts, unlike Lloyd's algorithm).
// It returns the smallest value of the high cluster, or ok = false when the
// values do not split (fewer than two distinct values). Ties between split
// points go to the earliest, so the result is deterministic.
func splitTwoMeans(values []float64) (cut float64, ok bool) {
	if len(values) < 2 {
		return 0, false
	}
	xs := slices.Clone(values)
	slices.Sort(xs)
	n := len(xs)
	prefix := make([]float64, n+1)
	prefixSq := make([]float64, n+1)
	for i, x := range xs {
		prefix[i+1] = prefix[i] + x
		prefixSq[i+1] = prefixSq[i] + x*x
	}
	sse := func(lo, hi int) float64 { // values xs[lo:hi]
		m := float64(hi - lo)
		s := prefix[hi] - prefix[lo]
		return prefixSq[hi] - prefixSq[lo] - s*s/m
	}
	best, bestAt := 0.0, -1
	for i := 1; i < n; i++ {
		if xs[i] == xs[i-1] {
			continue // a split must separate distinct values
		}
		if c := sse(0, i) + sse(i, n); bestAt < 0 || c < best {
			best, bestAt = c, i
		}
	}
	if bestAt < 0 {
		return 0, false
	}
	return xs[bestAt], true
}

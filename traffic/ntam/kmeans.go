package ntam

import (
	"math"
	"slices"
)

// splitTwoMeans partitions values into a low and a high cluster with exact
// one-dimensional k-means for k = 2: the optimal clusters are contiguous in
// sorted order, so the split with the least within-cluster sum of squares
// among all split points is the global optimum (no random restarts, unlike
// Lloyd's algorithm). It returns the smallest value of the high cluster, or
// ok = false when the values do not split (fewer than two distinct values).
// Ties between split points go to the earliest, so the result is
// deterministic.
//
// Sorting every link's delay each cycle was most of the slow-link filter's
// cost on a large component, so large inputs go through bucketedTwoMeans,
// which sorts only the few value ranges where the optimum can lie.
func splitTwoMeans(values []float64) (cut float64, ok bool) {
	return new(twoMeansScratch).split(values)
}

// twoMeansScratch keeps bucketedTwoMeans' buckets for the next split: the
// filter splits a component's links every cycle.
type twoMeansScratch struct {
	buckets []bucket
	inner   []bool
}

// split is splitTwoMeans reusing the scratch's arrays.
func (ws *twoMeansScratch) split(values []float64) (cut float64, ok bool) {
	if len(values) > bucketedAbove {
		if cut, ok, done := ws.bucketedTwoMeans(values); done {
			return cut, ok
		}
	}
	return sortedTwoMeans(values)
}

// bucket is one value range of bucketedTwoMeans.
type bucket struct {
	count           int
	sum, sumSq      float64
	lowest, highest float64
	values          []float64
}

// bucketedAbove is the input size from which bucketing pays for itself.
const bucketedAbove = 256

// sortedTwoMeans tries every split point of the sorted values.
func sortedTwoMeans(values []float64) (cut float64, ok bool) {
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
	best, bestAt := 0.0, -1
	for i := 1; i < n; i++ {
		if xs[i] == xs[i-1] {
			continue // a split must separate distinct values
		}
		c := sse(prefix[i], prefixSq[i], float64(i)) + sse(prefix[n]-prefix[i], prefixSq[n]-prefixSq[i], float64(n-i))
		if bestAt < 0 || c < best {
			best, bestAt = c, i
		}
	}
	if bestAt < 0 {
		return 0, false
	}
	return xs[bestAt], true
}

// sse is the sum of squared deviations from the mean of count values with
// the given sum and sum of squares.
func sse(sum, sumSq, count float64) float64 {
	return sumSq - sum*sum/count
}

// bucketedTwoMeans finds the same optimum without sorting everything. At
// the optimum every value is nearest its own cluster's mean (else moving it
// would lower the sum of squares), so the split threshold t, halfway
// between the two means, lies between the low cluster's largest value and
// the high cluster's smallest. The values go into equal-width buckets, each
// keeping its count, sum and sum of squares. A split between two buckets is
// evaluated from those sums directly. A split inside bucket b bounds the
// means: the low mean lies between the mean of the buckets before b and the
// mean of those and b together, the high mean likewise, so t lies in an
// interval that must meet b's own range of values; only the buckets where
// it does (usually one or two) are sorted and their inner splits tried.
// Candidates are visited in sorted order and ties go to the earliest, as in
// sortedTwoMeans. done is false when the values cannot be bucketed (a
// non-finite value, or a range too narrow or too wide to divide into
// buckets), and the caller sorts.
func (ws *twoMeansScratch) bucketedTwoMeans(values []float64) (cut float64, ok, done bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false, false
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo == hi {
		return 0, false, true
	}
	nb := len(values) / 8
	// Values that differ by a few subnormals leave no width to divide by
	// (0/0 indexes no bucket), and values spread wider than the largest
	// float leave an infinite one: both are sorted instead.
	width := (hi - lo) / float64(nb)
	if !(width > 0) || math.IsInf(width, 1) {
		return 0, false, false
	}
	h := ws.histogram(values, lo, width, nb)
	h.markInner(1e-12 * max(math.Abs(lo), math.Abs(hi), 1))
	for _, x := range values {
		if i := h.index(x); h.inner[i] {
			h.buckets[i].values = append(h.buckets[i].values, x)
		}
	}
	cut, ok = h.bestSplit()
	return cut, ok, true
}

// histogram is the values in nb equal-width buckets from lo, with the
// totals every candidate split is priced against.
type histogram struct {
	buckets        []bucket
	inner          []bool // buckets the optimal split may fall inside
	lo, width      float64
	n              int
	total, totalSq float64
}

func (h *histogram) index(x float64) int { return min(int((x-h.lo)/h.width), len(h.buckets)-1) }

// histogram fills the scratch's buckets with values.
func (ws *twoMeansScratch) histogram(values []float64, lo, width float64, nb int) *histogram {
	if cap(ws.buckets) < nb {
		ws.buckets = make([]bucket, nb)
	}
	if cap(ws.inner) < nb {
		ws.inner = make([]bool, nb)
	}
	h := &histogram{buckets: ws.buckets[:nb], inner: ws.inner[:nb], lo: lo, width: width, n: len(values)}
	clear(h.inner)
	for i := range h.buckets {
		h.buckets[i] = bucket{lowest: math.Inf(1), highest: math.Inf(-1), values: h.buckets[i].values[:0]}
	}
	for _, x := range values {
		b := &h.buckets[h.index(x)]
		b.count++
		b.sum += x
		b.sumSq += x * x
		b.lowest, b.highest = min(b.lowest, x), max(b.highest, x)
	}
	for _, b := range h.buckets {
		h.total += b.sum
		h.totalSq += b.sumSq
	}
	return h
}

// markInner marks the buckets whose own range meets the interval the
// threshold t must lie in were the split inside them (within slack).
func (h *histogram) markInner(slack float64) {
	var before, beforeSum float64
	for i, b := range h.buckets {
		if b.count >= 2 && b.lowest < b.highest {
			afterCount := float64(h.n) - before - float64(b.count)
			afterSum := h.total - beforeSum - b.sum
			lowMin, lowMax := b.lowest, (beforeSum+b.sum)/(before+float64(b.count))
			if before > 0 {
				lowMin = beforeSum / before
			}
			highMin, highMax := (b.sum+afterSum)/(float64(b.count)+afterCount), b.highest
			if afterCount > 0 {
				highMax = afterSum / afterCount
			}
			tMin, tMax := (lowMin+highMin)/2, (lowMax+highMax)/2
			h.inner[i] = tMax >= b.lowest-slack && tMin <= b.highest+slack
		}
		before += float64(b.count)
		beforeSum += b.sum
	}
}

// bestSplit visits the candidates in sorted order: every split between two
// buckets, and every split inside an inner bucket (whose values it sorts).
// A candidate is the first value of the high cluster, priced with the sums
// of the values before it; ties go to the earliest.
func (h *histogram) bestSplit() (cut float64, ok bool) {
	best := 0.0
	consider := func(left int, leftSum, leftSq, cutValue float64) {
		c := sse(leftSum, leftSq, float64(left)) + sse(h.total-leftSum, h.totalSq-leftSq, float64(h.n-left))
		if !ok || c < best {
			best, cut, ok = c, cutValue, true
		}
	}
	left, leftSum, leftSq := 0, 0.0, 0.0
	for i := range h.buckets {
		b := &h.buckets[i]
		if b.count == 0 {
			continue
		}
		if left > 0 {
			consider(left, leftSum, leftSq, b.lowest)
		}
		if h.inner[i] {
			slices.Sort(b.values)
			s, sq := leftSum, leftSq
			for k := 1; k < len(b.values); k++ {
				x := b.values[k-1]
				s += x
				sq += x * x
				if b.values[k] != x {
					consider(left+k, s, sq, b.values[k])
				}
			}
		}
		left += b.count
		leftSum += b.sum
		leftSq += b.sumSq
	}
	return cut, ok
}

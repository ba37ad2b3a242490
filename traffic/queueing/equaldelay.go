package queueing

import (
	"cmp"
	"math"
	"slices"
)

// EqualDelaySplit splits rate requests per second over processor-sharing
// servers of the given capacities (requests per second each can serve) so
// that every server given traffic has the same mean response time,
// 1 ÷ (μᵢ − λᵢ): λᵢ = max(0, μᵢ − θ), with θ, the spare capacity each
// server used keeps, chosen so the λᵢ sum to rate. No other split has a
// lower worst mean response time over the servers it uses: moving traffic
// between two used servers slows one of them, and a server left out has
// μᵢ ≤ θ, so even its first request would wait longer than 1/θ. When rate
// is at or above the capacities' sum no split keeps every queue stable,
// and each server gets rate × its share of the capacity. Capacities that
// are not positive get nothing; with none positive, or no rate, every
// server gets nothing.
func EqualDelaySplit(capacities []float64, rate float64) []float64 {
	split := make([]float64, len(capacities))
	total := 0.0
	for _, mu := range capacities {
		if mu > 0 {
			total += mu
		}
	}
	if !(rate > 0) || !(total > 0) || math.IsInf(total, 0) {
		return split
	}
	if rate >= total {
		for i, mu := range capacities {
			if mu > 0 {
				split[i] = rate * mu / total
			}
		}
		return split
	}
	theta := spareCapacity(capacities, rate)
	for i, mu := range capacities {
		split[i] = math.Max(0, mu-theta)
	}
	return split
}

// spareCapacity is θ for rate below the capacities' sum: the servers
// taken fastest first, it is (Σ of the k fastest − rate) ÷ k for the first
// k at which the next server's capacity is no more than that.
func spareCapacity(capacities []float64, rate float64) float64 {
	sorted := slices.Clone(capacities)
	slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) }) // NaN last
	sum := 0.0
	for k, mu := range sorted {
		if !(mu > 0) {
			break
		}
		sum += mu
		theta := (sum - rate) / float64(k+1)
		if k+1 == len(sorted) || !(sorted[k+1] > theta) {
			return theta
		}
	}
	return 0 // unreachable for rate below the positive capacities' sum
}

// Package queueing holds the M/M/c formulas ARTT uses to price a static
// traffic split against per-request, queue-aware balancing (the Erlang C
// probability that a request waits, and the mean time it waits), and the
// split over processor-sharing servers that gives each the same mean
// response time, which bounds how far protection may cut a slowed node.
// Pure computation: rates in requests per second, times in seconds.
package queueing

import "math"

// ErlangC is the probability that an arrival to an M/M/c queue with c
// servers and offered load a = λ/μ (in Erlangs) has to wait. It is 1 when
// the queue is saturated (a ≥ c) and 0 for no load. c < 1 counts as one
// server.
func ErlangC(c int, a float64) float64 {
	if c < 1 {
		c = 1
	}
	if !(a > 0) {
		return 0
	}
	if a >= float64(c) {
		return 1
	}
	// The Erlang B recursion B(k) = a·B(k-1) / (k + a·B(k-1)) is stable for
	// any c, where the textbook sum of a^k/k! overflows past c ≈ 170.
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho*(1-b))
}

// MeanWait is the mean time a request waits for a server in an M/M/c queue
// with arrival rate lambda and per-server service rate mu, not counting its
// own service: ErlangC / (cμ − λ). +Inf when λ ≥ cμ; 0 for no arrivals.
func MeanWait(c int, lambda, mu float64) float64 {
	if c < 1 {
		c = 1
	}
	if !(lambda > 0) {
		return 0
	}
	if !(mu > 0) || lambda >= float64(c)*mu {
		return math.Inf(1)
	}
	return ErlangC(c, lambda/mu) / (float64(c)*mu - lambda)
}

// TieProbability is the chance that two independent Poisson counts of mean
// q are equal: Σ_k (e^{-q} q^k / k!)² = e^{-2q} I₀(2q). It is 1 at q = 0
// and falls as 1/√(4πq) for large q. Up to q = 500 the terms are summed in
// log space, so no factorial or power overflows; beyond, where the sum would
// need ever more terms (about q of them), Hankel's asymptotic series for I₀
// is already exact to rounding.
func TieProbability(q float64) float64 {
	switch {
	case !(q > 0):
		return 1
	case math.IsInf(q, 1):
		return 0
	case q <= tieSeriesFrom:
		return tieBySum(q)
	default:
		return tieAsymptotic(q)
	}
}

// tieSeriesFrom is the mean above which TieProbability uses the asymptotic
// series: at 2q = 1000 its terms fall by a factor of 4000 or more each.
const tieSeriesFrom = 500

// tieBySum adds the squared Poisson probabilities. Term k rises to a peak
// near k = q and falls after it.
func tieBySum(q float64) float64 {
	sum := 0.0
	logQ := math.Log(q)
	for k := 0; ; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		term := math.Exp(2 * (-q + float64(k)*logQ - lg))
		sum += term
		if float64(k) > q && term < 1e-17*sum {
			return sum
		}
	}
}

// tieAsymptotic is e^{-x} I₀(x) at x = 2q by Hankel's expansion,
// 1/√(2πx) · Σ_k aₖ/xᵏ with a₀ = 1 and aₖ = aₖ₋₁ (2k−1)² / (8k), summed
// while its terms still fall.
func tieAsymptotic(q float64) float64 {
	x := 2 * q
	sum, term := 1.0, 1.0
	for k := 1; k < 30; k++ {
		next := term * float64((2*k-1)*(2*k-1)) / (8 * float64(k) * x)
		if next >= term || next < 1e-17*sum {
			break
		}
		term = next
		sum += term
	}
	return sum / math.Sqrt(2*math.Pi*x)
}

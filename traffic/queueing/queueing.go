// Package queueing holds the M/M/c formulas ARTT uses to price a static
// traffic split against per-request, queue-aware balancing: the Erlang C
// probability that a request waits, and the mean time it waits. Pure
// computation: rates in requests per second, times in seconds.
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
// and falls as 1/√(4πq) for large q. The terms are summed in log space, so
// no factorial or power overflows.
func TieProbability(q float64) float64 {
	if !(q > 0) {
		return 1
	}
	if math.IsInf(q, 1) {
		return 0
	}
	// Term k is the square of the Poisson probability of k; they rise to a
	// peak near k = q and fall after it.
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

package health

import "math"

// A group cut for its latency gets a probe's share too, and its next
// latency pool takes as long to fill as a cost pool: a node back at full
// speed kept its last judged ratio, and its cut, for minutes. Its readings
// are tested for the change back as its costs are (recovery), on the
// load-free mean latency of each reading (the histogram's sum over its
// count, exact where a p95 over a few requests is not): the held regime's
// mean is that of the pool the ratio was judged on, the usual one that
// mean divided by the ratio, a slowdown stretching the whole distribution
// alike. Response times are taken as exponential, the model the pool's
// 1.45/√n error already assumes.

// p95Error is √n times the relative standard error of the p95 of n
// exponential draws: √(0.95·0.05)/0.05 ÷ ln 20, the sample quantile's
// asymptotic spread (its density at ln 20 is 0.05) over its value.
const p95Error = 1.45

// latencyRecoveryEvidence is h = ln(MinLatencyRequests ÷ ε), for ε the
// chance that a healthy group's full pool reads past
// DegradedLatencyFactor: the ratio of two pools' p95s has a log-normal
// error of √2·p95Error/√n. For the defaults (100 requests, 2) ε is
// 3.6e-4 and h 12.5: about 30 requests after its recovery for a group
// judged three times slower. A configuration whose pool or bar gives no
// such chance gets no test: +Inf.
func latencyRecoveryEvidence(cfg Config) float64 {
	n, bar := cfg.MinLatencyRequests, cfg.DegradedLatencyFactor
	if !(n > 0 && bar > 1 && !math.IsInf(n*bar, 1)) {
		return math.Inf(1)
	}
	z := math.Log(bar) / (math.Sqrt2 * p95Error / math.Sqrt(n))
	return math.Log(n) - math.Log(0.5*math.Erfc(z/math.Sqrt2))
}

// refutedRatio folds one load-free mean latency over n requests into the
// group's test while its held ratio keeps it past the bar (the test
// restarts otherwise; a reading without a mean is no evidence and leaves
// it as it is). When the test refutes the held ratio it returns the ratio
// of the requests since the test's restart, ok true, and their mean
// becomes the held one; the latency pool starts afresh, its requests
// before the run the refuted regime's.
func (t *Tracker) refutedRatio(g *group, meanMs, n float64) (ratio float64, ok bool) {
	held := g.heldLatencyMs
	if !(g.latencyJudged && g.ratio > t.cfg.DegradedLatencyFactor && held > 0) {
		g.latencyRecovery = recovery{}
		return 0, false
	}
	usual := held / g.ratio
	if !(meanMs > 0 && n > 0) || !g.latencyRecovery.fold(held, usual, meanMs, n, t.latencyRecoveryEvidence) {
		return 0, false
	}
	mean, _, _ := g.latencyRecovery.since.take(0) // it holds requests: the evidence is positive
	g.latency, g.latencyMean = pool{}, pool{}
	g.latencyRecovery, g.heldLatencyMs = recovery{}, mean
	return mean / usual, true
}

package health

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// How a group's readings become evidence: pooled to enough requests to
// judge (latency and cost), and said in words for the operator (evidence).

// latencyRatio pools the interval's load-free p95 (and mean) over its n
// requests and, once the pool holds MinLatencyRequests, judges the pooled
// p95: it seeds the baseline, and after that is read against the baseline
// or the peers' median p95 where that is higher. Between judgements each
// reading carries the last judged ratio, unless the readings since the
// group recovered refute it (refutedRatio), and a full pool past the bar
// waits while that test weighs its newest requests (recovery.poolWaits). An
// interval without latency (busy, or not measured) is no latency
// evidence. judgedP95 is the p95 judged this interval, NaN when none was.
func (t *Tracker) latencyRatio(g *group, p95Ms, meanMs, peerP95Ms, n float64) (ratio float64, known bool, judgedP95 float64) {
	if !(p95Ms >= 0 && n > 0) {
		return 1, false, math.NaN()
	}
	g.latency.add(p95Ms, n)
	if meanMs > 0 {
		g.latencyMean.add(meanMs, n)
	}
	if ratio, refuted := t.refutedRatio(g, meanMs, n); refuted {
		g.ratio = ratio
	}
	ref := g.baseline
	if peerP95Ms > ref { // a NaN peer median is no reference
		ref = peerP95Ms
	}
	pending := g.latency
	p95, _, full := pending.take(t.cfg.MinLatencyRequests)
	if !full || g.latencyRecovery.poolWaits(p95, t.cfg.DegradedLatencyFactor*ref) {
		return g.ratio, g.latencyJudged, math.NaN()
	}
	g.latency = pending
	held, _, _ := g.latencyMean.take(math.SmallestNonzeroFloat64) // 0: no reading had a mean
	if math.IsNaN(g.baseline) {
		g.baseline = p95
		return g.ratio, g.latencyJudged, math.NaN()
	}
	g.ratio, g.latencyJudged, g.heldLatencyMs, g.latencyRecovery = p95/ref, true, held, recovery{}
	return g.ratio, true, p95
}

// costSlowdown pools the interval's cost reading (its requests: the
// rate times interval) and, once the pool holds MinCostRequests, judges
// it: the pooled CPU per request against the baseline, divided by the
// peers' change when that is above 1 (a heavier mix everywhere is nobody's
// fault), and moves the baseline on by its half-life. Between judgements
// each reading carries the last judged slowdown, unless the readings since
// the group recovered refute it (refutedSlowdown), and a full pool past
// the bar waits while the test weighs its newest requests
// (recovery.poolWaits); known is false until the first judgement (which follows the pool that
// seeded the baseline), and for an interval without a reading: a group
// that gets no traffic (an Unhealthy one) gives no evidence, and is let
// back to Degraded after RecoverAfter to be probed.
func (t *Tracker) costSlowdown(g *group, at time.Time, o Observation, interval time.Duration) (slow float64, known bool) {
	n := o.CostRate * interval.Seconds()
	if !(o.CostPerRequest > 0 && n > 0) {
		return 1, false
	}
	g.cost.add(o.CostPerRequest, n)
	ref := g.costBaseline
	if o.PeerCostChange > 1 {
		ref *= o.PeerCostChange
	}
	if slow, refuted := t.refutedSlowdown(g, ref, o.CostPerRequest, n); refuted {
		g.slow = slow
	}
	pending := g.cost
	cost, pooled, full := pending.take(t.cfg.MinCostRequests)
	if !full {
		return g.slow, g.judged
	}
	if g.recovery.poolWaits(cost, t.cfg.DegradedCostFactor*ref) {
		return g.slow, g.judged
	}
	g.cost = pending
	if !(g.costBaseline > 0) {
		g.costBaseline, g.costAt = cost, at
		return g.slow, g.judged
	}
	slow, g.heldCost, g.heldRequests, g.recovery = cost/ref, cost, pooled, recovery{}
	if dt := at.Sub(g.costAt); dt > 0 {
		w := 1 - math.Exp2(-dt.Seconds()/t.cfg.CostBaselineHalfLife.Seconds())
		g.costBaseline += w * (cost - g.costBaseline)
		g.costAt = at
	}
	g.slow, g.judged = slow, true
	return slow, true
}

// evidence says which of an observation's readings were past their
// Degraded bars, and by how much; a slowdown names the requests it was
// judged on (fewer than a pool where the recovery test set one aside).
func (t *Tracker) evidence(ratio, slow, held, starved, errorRate float64) string {
	var parts []string
	if ratio > t.cfg.DegradedLatencyFactor {
		parts = append(parts, fmt.Sprintf("load-free p95 %.2f× its baseline", ratio))
	}
	if slow > 1 && slow*starved > t.cfg.DegradedCostFactor {
		part := fmt.Sprintf("CPU per request %.2f× its baseline", slow)
		if held > 0 {
			part += fmt.Sprintf(" over %.0f requests", held)
		}
		parts = append(parts, part)
	}
	if starved > 1 && slow*starved > t.cfg.DegradedCostFactor {
		parts = append(parts, fmt.Sprintf("CPU work stretched %.2f× by waiting for a CPU", starved))
	}
	if errorRate > t.cfg.DegradedErrorRate {
		parts = append(parts, fmt.Sprintf("errors %.1f%% above its peers'", 100*errorRate))
	}
	return strings.Join(parts, ", ")
}

// starvation is an observation's CPU stretch against its peers': a stretch
// that every group shows (a burst on every node) is nobody's fault. known
// is false when the stretch is unknown.
func starvation(o Observation) (starved float64, known bool) {
	if !(o.CPUStretch >= 1) {
		return 1, false
	}
	starved = o.CPUStretch
	if o.PeerCPUStretch > 1 {
		starved /= o.PeerCPUStretch
	}
	return math.Max(starved, 1), true
}

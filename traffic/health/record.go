package health

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Record is what a tracker has learned of one group, for the next leader
// to continue from (Tracker.Record, Tracker.Restore): without it a group
// cut for degrading would relearn its baselines from its degraded state,
// and be restored at once.
type Record struct {
	State        State     `json:"state"`
	Entered      time.Time `json:"entered"`
	FailingSince time.Time `json:"failingSince,omitzero"`
	HealthySince time.Time `json:"healthySince,omitzero"`
	Last         time.Time `json:"last"`
	BaselineMs   Number    `json:"baselineMs"`
	Score        float64   `json:"score"`
	CostBaseline Number    `json:"costBaseline"`
	CostAt       time.Time `json:"costAt,omitzero"`
	Slow         float64   `json:"slow"`
	// Judged says Slow was judged from a pool, not the neutral 1 of a group
	// not judged yet; PooledCPU and PooledRequests are the pool still
	// filling (MinCostRequests), or full and waiting for the recovery test.
	// A record without them (an older leader's) starts a new pool.
	Judged         bool    `json:"judged,omitempty"`
	PooledCPU      float64 `json:"pooledCPU,omitempty"`
	PooledRequests float64 `json:"pooledRequests,omitempty"`
	// HeldCost is the CPU per request of the pool Slow was judged on; a
	// record without it waits for a full pool to set Slow aside.
	// RecoveryEvidence, RecoveryCPU and RecoveryRequests are the state of
	// the test that may set it aside sooner: its log-likelihood ratio and
	// the requests since it last restarted (a record without them restarts
	// it).
	HeldCost float64 `json:"heldCost,omitempty"`
	// HeldRequests are the requests HeldCost was judged on (a record
	// without them names none in its evidence).
	HeldRequests     float64 `json:"heldRequests,omitempty"`
	RecoveryEvidence float64 `json:"recoveryEvidence,omitempty"`
	RecoveryCPU      float64 `json:"recoveryCPU,omitempty"`
	RecoveryRequests float64 `json:"recoveryRequests,omitempty"`
	// LatencyJudged says Ratio (the last judged load-free p95 against its
	// reference) was judged from a pool; PooledP95 (Σ p95 ms × requests)
	// and PooledP95Requests are the pool still filling
	// (MinLatencyRequests). A record without them starts a new pool, its
	// ratio neutral.
	LatencyJudged     bool    `json:"latencyJudged,omitempty"`
	Ratio             float64 `json:"ratio,omitempty"`
	PooledP95         float64 `json:"pooledP95,omitempty"`
	PooledP95Requests float64 `json:"pooledP95Requests,omitempty"`
	// PooledMeanMs (Σ mean ms × requests) and PooledMeanRequests are the
	// same pool's mean latency; HeldLatencyMs is the mean of the pool
	// Ratio was judged on, and LatencyRecoveryEvidence,
	// LatencyRecoveryMs and LatencyRecoveryRequests the state of the test
	// that may set Ratio aside before the next pool (a record without
	// them waits for that pool).
	PooledMeanMs            float64 `json:"pooledMeanMs,omitempty"`
	PooledMeanRequests      float64 `json:"pooledMeanRequests,omitempty"`
	HeldLatencyMs           float64 `json:"heldLatencyMs,omitempty"`
	LatencyRecoveryEvidence float64 `json:"latencyRecoveryEvidence,omitempty"`
	LatencyRecoveryMs       float64 `json:"latencyRecoveryMs,omitempty"`
	LatencyRecoveryRequests float64 `json:"latencyRecoveryRequests,omitempty"`
	// Starved is the group's last CPU stretch against its peers'; a
	// record without it (an older leader's) starts neutral, at 1.
	Starved float64 `json:"starved,omitempty"`
	// Observed is the group's last observation, where the interval of
	// its next reading began.
	Observed    time.Time `json:"observed,omitzero"`
	RestoreFrom float64   `json:"restoreFrom,omitempty"`
	HealthyAt   time.Time `json:"healthyAt,omitzero"`
	// Why is the evidence of the group's last bad observation; Erring
	// says errors were part of it (a record without it: they were not).
	Why    string `json:"why,omitempty"`
	Erring bool   `json:"erring,omitempty"`
}

// Number is a float64 that may be NaN (not learned yet), written as null.
type Number float64

// MarshalJSON writes NaN as null.
func (n Number) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// UnmarshalJSON reads null as NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Number(f)
	return nil
}

// Record returns what the tracker holds of a group; false for a group it
// does not know.
func (t *Tracker) Record(key string) (Record, bool) {
	g, ok := t.groups[key]
	if !ok {
		return Record{}, false
	}
	return Record{
		State: g.state, Entered: g.entered, FailingSince: g.failingSince, HealthySince: g.healthySince,
		Last: g.last, BaselineMs: Number(g.baseline), Score: g.score,
		CostBaseline: Number(g.costBaseline), CostAt: g.costAt, Slow: g.slow, Starved: g.starved,
		Judged: g.judged, PooledCPU: g.cost.sum, PooledRequests: g.cost.requests, HeldCost: g.heldCost, HeldRequests: g.heldRequests,
		RecoveryEvidence: g.recovery.evidence, RecoveryCPU: g.recovery.since.sum, RecoveryRequests: g.recovery.since.requests, Observed: g.observed,
		LatencyJudged: g.latencyJudged, Ratio: g.ratio, PooledP95: g.latency.sum, PooledP95Requests: g.latency.requests,
		PooledMeanMs: g.latencyMean.sum, PooledMeanRequests: g.latencyMean.requests, HeldLatencyMs: g.heldLatencyMs,
		LatencyRecoveryEvidence: g.latencyRecovery.evidence, LatencyRecoveryMs: g.latencyRecovery.since.sum, LatencyRecoveryRequests: g.latencyRecovery.since.requests,
		RestoreFrom: g.restoreFrom, HealthyAt: g.healthyAt, Why: g.why, Erring: g.erring,
	}, true
}

// Restore sets a group's state from a Record, seen at seen. A record that
// no tracker could have written is refused whole, naming the field.
func (t *Tracker) Restore(key string, r Record, seen time.Time) error {
	switch r.State {
	case Healthy, Degraded, Unhealthy:
	default:
		return fmt.Errorf("state = %q: not Healthy, Degraded or Unhealthy", r.State)
	}
	for _, f := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{{"score", r.Score, 0, 1}, {"restoreFrom", r.RestoreFrom, 0, 1}, {"slow", r.Slow, 0, math.MaxFloat64},
		{"pooledCPU", r.PooledCPU, 0, math.MaxFloat64}, {"pooledRequests", r.PooledRequests, 0, math.MaxFloat64}, {"heldCost", r.HeldCost, 0, math.MaxFloat64}, {"heldRequests", r.HeldRequests, 0, math.MaxFloat64},
		{"recoveryEvidence", r.RecoveryEvidence, 0, math.MaxFloat64}, {"recoveryCPU", r.RecoveryCPU, 0, math.MaxFloat64}, {"recoveryRequests", r.RecoveryRequests, 0, math.MaxFloat64},
		{"ratio", r.Ratio, 0, math.MaxFloat64}, {"pooledP95", r.PooledP95, 0, math.MaxFloat64}, {"pooledP95Requests", r.PooledP95Requests, 0, math.MaxFloat64},
		{"pooledMeanMs", r.PooledMeanMs, 0, math.MaxFloat64}, {"pooledMeanRequests", r.PooledMeanRequests, 0, math.MaxFloat64}, {"heldLatencyMs", r.HeldLatencyMs, 0, math.MaxFloat64},
		{"latencyRecoveryEvidence", r.LatencyRecoveryEvidence, 0, math.MaxFloat64}, {"latencyRecoveryMs", r.LatencyRecoveryMs, 0, math.MaxFloat64}, {"latencyRecoveryRequests", r.LatencyRecoveryRequests, 0, math.MaxFloat64},
		{"starved", r.Starved, 0, math.MaxFloat64}} {
		if !(f.v >= f.lo && f.v <= f.hi) {
			return fmt.Errorf("%s = %v: want a number in [%g, %g]", f.name, f.v, f.lo, f.hi)
		}
	}
	for _, f := range []struct {
		name string
		v    Number
	}{{"baselineMs", r.BaselineMs}, {"costBaseline", r.CostBaseline}} {
		if v := float64(f.v); !math.IsNaN(v) && !(v > 0 && v < math.MaxFloat64) {
			return fmt.Errorf("%s = %v: want a positive number or null", f.name, v)
		}
	}
	starved := math.Max(r.Starved, 1) // 0: not recorded
	ratio := r.Ratio
	if !r.LatencyJudged {
		ratio = 1 // neutral until a latency pool is judged
	}
	g := &group{
		state: r.State, entered: r.Entered, failingSince: r.FailingSince, healthySince: r.HealthySince,
		baseline: float64(r.BaselineMs), score: r.Score, last: r.Last, seen: seen,
		costBaseline: float64(r.CostBaseline), costAt: r.CostAt, slow: r.Slow, starved: starved,
		judged: r.Judged, cost: pool{sum: r.PooledCPU, requests: r.PooledRequests}, heldCost: r.HeldCost, heldRequests: r.HeldRequests,
		recovery: recovery{evidence: r.RecoveryEvidence, since: pool{sum: r.RecoveryCPU, requests: r.RecoveryRequests}}, observed: r.Observed,
		latencyJudged: r.LatencyJudged, ratio: ratio, latency: pool{sum: r.PooledP95, requests: r.PooledP95Requests},
		latencyMean: pool{sum: r.PooledMeanMs, requests: r.PooledMeanRequests}, heldLatencyMs: r.HeldLatencyMs,
		latencyRecovery: recovery{evidence: r.LatencyRecoveryEvidence, since: pool{sum: r.LatencyRecoveryMs, requests: r.LatencyRecoveryRequests}},
		restoreFrom:     r.RestoreFrom, healthyAt: r.HealthyAt, why: r.Why, erring: r.Erring,
	}
	if g.observed.IsZero() {
		g.observed = seen // an older leader's record
	}
	// A time after seen is clock skew between leaders, or a record no
	// tracker wrote: each is taken as now, so no timer runs backwards and
	// no state waits for a year that will not come.
	for _, t := range []*time.Time{&g.entered, &g.failingSince, &g.healthySince, &g.last, &g.costAt, &g.healthyAt, &g.observed} {
		if t.After(seen) {
			*t = seen
		}
	}
	t.groups[key] = g
	return nil
}

// Len is the number of groups tracked.
func (t *Tracker) Len() int { return len(t.groups) }

package health

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The recovery evidence for the defaults, worked by hand: a full pool of
// 100 exponential costs sums to Gamma(100, 1) in units of the mean, and
// P(Gamma(n, 1) > x) = P(Poisson(x) < n) for a whole n, a sum of terms.
func TestRecoveryEvidenceIsAFullPoolsError(t *testing.T) {
	const n, x = 100, 150.0
	term, tail := math.Exp(-x), 0.0
	for k := range n {
		tail += term
		term *= x / float64(k+1)
	}
	got := recoveryEvidence(DefaultConfig())
	if want := -math.Log(tail); math.Abs(got-want) > 1e-9 {
		t.Errorf("recovery evidence %v, want ln(1/ε) = %v for ε = P(Poisson(150) < 100) = %.3g", got, want, tail)
	}
	if got < 11.9 || got > 12.1 {
		t.Errorf("recovery evidence %v, want about 12.0 (ε 5.9e-6)", got)
	}
}

// cutForCost returns a tracker whose group g was judged three times slower
// on a full pool at 30 requests a second, and the time of that judgement.
func cutForCost(t *testing.T) (*Tracker, time.Time) {
	t.Helper()
	tr := New(DefaultConfig())
	for i := range 4 {
		tr.Observe("g", secondAt(15*i), costObservation(0.010, 30))
	}
	if s := tr.Observe("g", secondAt(60), costObservation(0.030, 30)); s.State != Degraded || s.Weight > 0.5 {
		t.Fatalf("threefold cost on 450 requests: %s at %v, want Degraded at most 0.5", s.State, s.Weight)
	}
	return tr, secondAt(60)
}

func costObservation(cost, rate float64) Observation {
	return Observation{P95Ms: math.NaN(), ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: 0,
		Utilization: 0.1, CostPerRequest: cost, PeerCostChange: 1, CostRate: rate, CPUStretch: math.NaN(), PeerCPUStretch: math.NaN()}
}

// A group cut for a slower CPU gets a probe's share: 0.2 requests a second,
// 100 requests in more than eight minutes. Back at full speed, it is read
// as recovered once its few requests refute the held judgement, and its
// recovery clock starts then rather than at the full pool.
func TestACutGroupBackAtFullSpeedIsSeenBeforeItsPoolFills(t *testing.T) {
	tr, cut := cutForCost(t)
	healthyAt := time.Duration(-1) // never, within the 480 s the pool takes
	for s := 15; s <= 480; s += 15 {
		st := tr.Observe("g", cut.Add(time.Duration(s)*time.Second), costObservation(0.010, 0.2))
		if st.State == Healthy {
			healthyAt = time.Duration(s) * time.Second
			break
		}
	}
	// The judgement moved the baseline on by one 15 s step of its 2-minute
	// half-life, to 0.01166. Each 15 s reading holds 3 requests at 0.010:
	// the log ratio gains 3·ln(0.030/0.01166) − 0.030·(1/0.01166 − 1/0.030)
	// = 1.26 a reading and reaches 12.0 on the tenth, at 150 s (30
	// requests); RecoverAfter (30 s) of good readings after it, the group
	// is Healthy at 180 s.
	if healthyAt != 180*time.Second {
		t.Errorf("Healthy %v after the cut (-1ns: not within 480 s), want 180s: 30 requests refute a threefold slowdown, then 30 s of good readings", healthyAt)
	}
}

// A group still as slow as judged is not read as recovered, however often
// its filling pool is looked at: over many draws of exponential costs at
// the held slowdown, the share refuted before the pool fills stays within
// the test's error (5.9e-6; none in 2,000 draws).
func TestACutGroupStillSlowIsNotReadAsRecovered(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for draw := range 2000 {
		tr, cut := cutForCost(t)
		// One request a reading: the pool is looked at after every one.
		for i := 1; i < 100; i++ {
			cost := 0.030 * rng.ExpFloat64()
			st := tr.Observe("g", cut.Add(time.Duration(i)*time.Second), costObservation(cost, 1))
			if st.Weight > 0.5 {
				t.Fatalf("draw %d: after %d requests at the held cost the weight is %v, want the cut (at most 0.5) to hold", draw, i, st.Weight)
			}
		}
	}
}

// A record carries the cost the held judgement was made on, so the next
// leader refutes it on the same requests; a record without it (an older
// leader's) waits for the full pool, as before.
func TestRecordCarriesTheHeldCost(t *testing.T) {
	learned, cut := cutForCost(t)
	r, _ := learned.Record("g")
	if r.HeldCost != 0.030 {
		t.Fatalf("held cost %v, want the judged pool's 0.030", r.HeldCost)
	}
	resumed := handedOver(t, r, cut)
	r.HeldCost = 0
	older := handedOver(t, r, cut)
	for s := 15; s <= 150; s += 15 {
		at := cut.Add(time.Duration(s) * time.Second)
		want := learned.Observe("g", at, costObservation(0.010, 0.2))
		if got := resumed.Observe("g", at, costObservation(0.010, 0.2)); !sameStatus(got, want) {
			t.Errorf("t=%ds: resumed %+v, the tracker that learned it %+v", s, got, want)
		}
		older.Observe("g", at, costObservation(0.010, 0.2))
	}
	if r, _ := learned.Record("g"); r.Slow >= 1.5 {
		t.Errorf("the learning tracker still holds a slowdown of %v after 30 requests at the baseline cost", r.Slow)
	}
	if r, _ := older.Record("g"); r.Slow != 3 {
		t.Errorf("a tracker resumed without the held cost reads a slowdown of %v, want the held 3 until the pool fills", r.Slow)
	}
}

package health

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The latency test's bar for the defaults, worked by hand: the log ratio
// of two pooled p95s over 100 requests has a standard error of
// √2 × 1.45 ÷ 10 = 0.205, the bar ln 2 is 3.38 of those, and P(Z > 3.38)
// = 3.62e-4 (a normal table), so h = ln(100 ÷ 3.62e-4) = 12.53.
func TestLatencyRecoveryEvidenceIsAFullPoolsError(t *testing.T) {
	if h := latencyRecoveryEvidence(DefaultConfig()); math.Abs(h-12.53) > 0.01 {
		t.Errorf("latency recovery evidence %v, want 12.53", h)
	}
	for _, c := range []struct{ requests, factor float64 }{{0, 2}, {100, 1}, {100, 0.5}, {-1, 2}} {
		cfg := DefaultConfig()
		cfg.MinLatencyRequests, cfg.DegradedLatencyFactor = c.requests, c.factor
		if h := latencyRecoveryEvidence(cfg); !math.IsInf(h, 1) {
			t.Errorf("MinLatencyRequests %v, DegradedLatencyFactor %v: evidence %v, want +Inf (no test)", c.requests, c.factor, h)
		}
	}
}

func latencyObservation(p95, mean, rate float64) Observation {
	return Observation{P95Ms: p95, MeanMs: mean, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: 0, Utilization: 0.1,
		CostPerRequest: math.NaN(), P95Rate: rate, CPUStretch: math.NaN(), PeerCPUStretch: math.NaN()}
}

// cutForLatency returns a tracker whose group g, its p95 100 ms and its
// mean 100/3 ms, was judged three times slower on a full pool at 30
// requests a second, and the time of that judgement (45 s).
func cutForLatency(t *testing.T) (*Tracker, time.Time) {
	t.Helper()
	tr := New(DefaultConfig())
	for i := range 3 {
		tr.Observe("g", secondAt(15*i), latencyObservation(100, 100.0/3, 30))
	}
	if s := tr.Observe("g", secondAt(45), latencyObservation(300, 100, 30)); s.State != Degraded {
		t.Fatalf("p95 three times its baseline on 450 requests: %s, want Degraded", s.State)
	}
	return tr, secondAt(45)
}

// A group cut for its latency, back at full speed at a probe's 0.2
// requests a second (3 a 15 s reading), is seen as recovered once its
// few requests refute the held ratio, not when its next pool of 100
// fills (34 readings, 510 s). Each reading at the usual mean adds
// 3·ln 3 − 3·(1 − 1/3) = 1.296 to the log ratio, so the tenth (150 s
// after the cut) passes 12.53; Healthy follows RecoverAfter later.
func TestACutGroupsLatencyIsSeenRecoveredBeforeItsPoolFills(t *testing.T) {
	tr, cut := cutForLatency(t)
	for s := 15; s <= 510; s += 15 {
		st := tr.Observe("g", cut.Add(time.Duration(s)*time.Second), latencyObservation(100, 100.0/3, 0.2))
		if st.State == Healthy {
			if s != 180 {
				t.Errorf("Healthy %d s after the cut, want 180 (refuted at 150, RecoverAfter 30)", s)
			}
			return
		}
	}
	t.Error("not Healthy within the 510 s its next pool takes")
}

// A group still three times slower is not read as recovered: 2,000 runs of
// 199 requests at the held mean (exponential latencies, three a reading;
// each reading's p95 the held one, so only the test can read them as
// recovered), the test looked at after every reading. Ville's inequality
// bounds a false recovery at 3.6e-4 a pool, about 1.4 in these 4,000
// pools.
func TestACutGroupStillSlowInLatencyIsNotReadAsRecovered(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	falses := 0
	for range 2000 {
		tr, cut := cutForLatency(t)
		for k := 1; k <= 199/3; k++ {
			sum := 0.0
			for range 3 {
				sum += 100 * rng.ExpFloat64()
			}
			st := tr.Observe("g", cut.Add(time.Duration(15*k)*time.Second), latencyObservation(300, sum/3, 0.2))
			if st.State == Healthy {
				falses++
				break
			}
		}
	}
	if falses > 1 {
		t.Errorf("%d of 2,000 still-slow groups read as recovered, want at most 1 (the bound allows 1.4)", falses)
	}
}

// A latency pool across a recovery waits for the test: judged with the
// requests before the recovery it would read as a mix, past the bar, that
// the test must then refute afresh.
func TestALatencyPoolAcrossARecoveryWaitsForTheTest(t *testing.T) {
	tr, cut := cutForLatency(t)
	at := func(k int) time.Time { return cut.Add(time.Duration(15*k) * time.Second) }
	// 90 requests at the held latency, then the group recovers: 30
	// readings of 3, the slow ones restarting the test each time.
	k := 1
	for ; k <= 30; k++ {
		tr.Observe("g", at(k), latencyObservation(300, 100, 0.2))
	}
	for ; k <= 60; k++ {
		if st := tr.Observe("g", at(k), latencyObservation(100, 100.0/3, 0.2)); st.State == Healthy {
			// Refuted at the tenth recovered reading (k = 40), Healthy two
			// readings later. Judged at k = 34, the pool of 90 slow and 12
			// usual requests (2.76 times the baseline) would restart the
			// test against that mix, and Healthy would come at k = 48.
			if k != 42 {
				t.Errorf("Healthy at reading %d, want 42", k)
			}
			return
		}
	}
	t.Error("not Healthy within 30 readings of its recovery")
}

// A resumed tracker carries the latency test: handed over mid-run, it
// refutes the held ratio at the same reading as the tracker that learned
// it.
func TestRecordCarriesTheLatencyTest(t *testing.T) {
	learned, cut := cutForLatency(t)
	at := func(k int) time.Time { return cut.Add(time.Duration(15*k) * time.Second) }
	for k := 1; k <= 5; k++ {
		learned.Observe("g", at(k), latencyObservation(100, 100.0/3, 0.2))
	}
	r, _ := learned.Record("g")
	if r.LatencyRecoveryEvidence <= 0 || r.HeldLatencyMs != 100 {
		t.Fatalf("record %+v: want the test under way against a held 100 ms", r)
	}
	resumed := handedOver(t, r, at(5))
	for k := 6; k <= 14; k++ {
		want := learned.Observe("g", at(k), latencyObservation(100, 100.0/3, 0.2))
		if got := resumed.Observe("g", at(k), latencyObservation(100, 100.0/3, 0.2)); !sameStatus(got, want) {
			t.Errorf("reading %d: resumed %+v, the tracker that learned it %+v", k, got, want)
		}
	}
}

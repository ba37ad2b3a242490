package health

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// A group whose CPU per request tripled is Degraded. Carried through its
// Record (as JSON, the way artt-traffic hands it to the next leader), it
// stays Degraded under the same measurements, as in the tracker that
// learned it; a tracker that starts from nothing takes the tripled cost for
// its baseline and calls the group Healthy.
func TestRecordCarriesADegradedGroupAcrossARestart(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	obs := func(cost float64) Observation {
		return Observation{P95Ms: math.NaN(), ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: 0, Utilization: 0.3, CostPerRequest: cost, PeerCostChange: 1, CostRate: 30}
	}
	learned := New(DefaultConfig())
	for i := range 4 {
		learned.Observe("g", at(15*float64(i)), obs(0.010))
	}
	if s := learned.Observe("g", at(60), obs(0.030)); s.State != Degraded {
		t.Fatalf("threefold cost: %s, want Degraded", s.State)
	}
	r, ok := learned.Record("g")
	if !ok {
		t.Fatal("no record of a tracked group")
	}
	resumed := handedOver(t, r, at(60))
	fresh := New(DefaultConfig())
	for _, s := range []float64{75, 90, 105} {
		want := learned.Observe("g", at(s), obs(0.030))
		if got := resumed.Observe("g", at(s), obs(0.030)); !sameStatus(got, want) {
			t.Errorf("t=%vs: resumed %+v, the tracker that learned it %+v", s, got, want)
		}
		if got := fresh.Observe("g", at(s), obs(0.030)); got.State != Healthy {
			t.Errorf("t=%vs: a tracker from nothing is %s; the test shows nothing unless it is Healthy", s, got.State)
		}
	}
}

// A latency pool still filling passes to the next leader with the
// baseline: the resumed tracker judges the pool where the one that learned
// it would, and the group is Degraded in both.
func TestRecordCarriesALatencyPoolAcrossARestart(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	obs := func(p95 float64) Observation {
		return Observation{P95Ms: p95, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: 0, Utilization: 0.2, P95Rate: 40}
	}
	learned := New(DefaultConfig())
	for i, p95 := range []float64{math.NaN(), 100, 100, 100, 300, 300} {
		learned.Observe("g", at(i), obs(p95))
	}
	r, _ := learned.Record("g")
	if r.PooledP95Requests != 80 || r.BaselineMs != 100 {
		t.Fatalf("record %+v: want a baseline of 100 ms and 80 requests pooled", r)
	}
	resumed := handedOver(t, r, at(5))
	want := learned.Observe("g", at(6), obs(300))
	if got := resumed.Observe("g", at(6), obs(300)); !sameStatus(got, want) || got.State != Degraded {
		t.Errorf("resumed %+v, the tracker that learned it %+v; want both Degraded", got, want)
	}
}

// NaN (nothing learned yet) is written as null and read back as NaN.
func TestRecordOfANewGroupHasNullBaselines(t *testing.T) {
	tr := New(DefaultConfig())
	tr.Observe("g", time.Unix(0, 0), Observation{P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(), CostPerRequest: math.NaN()})
	r, _ := tr.Record("g")
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"baselineMs":null`) || !strings.Contains(string(b), `"costBaseline":null`) {
		t.Errorf("record %s: want null baselines", b)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil || !math.IsNaN(float64(back.BaselineMs)) {
		t.Errorf("read back: baseline %v, error %v; want NaN", back.BaselineMs, err)
	}
}

func TestRestoreRefusesRecordsNoTrackerWrites(t *testing.T) {
	good := Record{State: Degraded, Score: 0.5, Slow: 2, BaselineMs: Number(math.NaN()), CostBaseline: 0.01}
	for _, c := range []struct {
		name string
		edit func(*Record)
		says string
	}{
		{"unknown state", func(r *Record) { r.State = "Sick" }, `state = "Sick"`},
		{"score above 1", func(r *Record) { r.Score = 3 }, "score = 3"},
		{"negative slowdown", func(r *Record) { r.Slow = -1 }, "slow = -1"},
		{"NaN held latency", func(r *Record) { r.HeldLatencyMs = math.NaN() }, "heldLatencyMs = NaN"},
		{"zero cost baseline", func(r *Record) { r.CostBaseline = 0 }, "costBaseline = 0"},
		{"infinite latency baseline", func(r *Record) { r.BaselineMs = Number(math.Inf(1)) }, "baselineMs = +Inf"},
	} {
		r := good
		c.edit(&r)
		tr := New(DefaultConfig())
		err := tr.Restore("g", r, time.Unix(0, 0))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.says)
		}
		if tr.Len() != 0 {
			t.Errorf("%s: a refused record was half applied", c.name)
		}
	}
	if err := New(DefaultConfig()).Restore("g", good, time.Unix(0, 0)); err != nil {
		t.Errorf("a valid record refused: %v", err)
	}
}

// Forget drops groups gone from the cluster, and keeps a group cut
// Unhealthy that is still observed although it has no traffic, so no
// evidence (it has gone half-open by then).
func TestForgetDropsOnlyGroupsNoLongerObserved(t *testing.T) {
	t0 := time.Unix(0, 0)
	tr := New(DefaultConfig())
	nothing := Observation{P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(), CostPerRequest: math.NaN()}
	tr.Observe("gone", t0, Observation{P95Ms: 100, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	tr.Observe("cut", t0, Observation{P95Ms: 100, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	tr.Observe("cut", t0.Add(time.Second), Observation{P95Ms: 100, ErrorRate: 0.9, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	tr.Observe("cut", t0.Add(7*time.Second), Observation{P95Ms: 100, ErrorRate: 0.9, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	tr.Observe("cut", t0.Add(20*time.Minute), nothing)
	tr.Forget(t0.Add(10 * time.Minute))
	if _, ok := tr.Record("gone"); ok {
		t.Error("a group unobserved for 20 minutes was kept")
	}
	if r, ok := tr.Record("cut"); !ok || r.State == Healthy {
		t.Errorf("the observed group cut Unhealthy: %+v, kept %v; want it kept, not Healthy", r, ok)
	}
}

// handedOver is a new tracker that restored group "g" from r, passed
// through JSON as artt-traffic hands it to the next leader, at seen.
func handedOver(t *testing.T, r Record, seen time.Time) *Tracker {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	tr := New(DefaultConfig())
	if err := tr.Restore("g", back, seen); err != nil {
		t.Fatal(err)
	}
	return tr
}

// A record whose times lie ahead of the new leader's clock (skew between
// leaders, or a record no tracker wrote) is taken with those times as now:
// the group is judged by its next observation as any other.
func TestRestoreTakesFutureTimesAsNow(t *testing.T) {
	now := time.Unix(1000, 0)
	future := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := New(DefaultConfig())
	err := tr.Restore("g", Record{State: Degraded, Entered: future, HealthySince: future, Last: future, Observed: future,
		CostAt: future, HealthyAt: future, BaselineMs: Number(math.NaN()), CostBaseline: Number(math.NaN()), Score: 0.5, Slow: 1}, now)
	if err != nil {
		t.Fatal(err)
	}
	var st Status
	for s := 15; s <= 60; s += 15 {
		st = tr.Observe("g", now.Add(time.Duration(s)*time.Second), Observation{P95Ms: math.NaN(), ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	}
	if st.State != Healthy || !(st.Weight > 0 && st.Weight <= 1) {
		t.Errorf("after 45 s without errors: %s at %v, want Healthy with a weight in (0, 1]", st.State, st.Weight)
	}
}

// sameStatus is a == b with NaN (not learned yet) equal to NaN.
func sameStatus(a, b Status) bool {
	same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	return a.State == b.State && a.Why == b.Why && same(a.Weight, b.Weight) && same(a.Score, b.Score) &&
		same(a.BaselineMs, b.BaselineMs) && same(a.Capacity, b.Capacity) && same(a.CostBaseline, b.CostBaseline)
}

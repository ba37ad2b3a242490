package health

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The recovery evidence for the defaults, worked by hand: a full pool of
// 100 exponential costs sums to Gamma(100, 1) in units of the mean, and
// P(Gamma(n, 1) > x) = P(Poisson(x) < n) for a whole n, a sum of terms;
// the test may restart at any of the pool's 100 requests.
func TestRecoveryEvidenceIsAFullPoolsError(t *testing.T) {
	const n, x = 100, 150.0
	term, tail := math.Exp(-x), 0.0
	for k := range n {
		tail += term
		term *= x / float64(k+1)
	}
	got := recoveryEvidence(DefaultConfig())
	if want := math.Log(n / tail); math.Abs(got-want) > 1e-9 {
		t.Errorf("recovery evidence %v, want ln(100/ε) = %v for ε = P(Poisson(150) < 100) = %.3g", got, want, tail)
	}
	if got < 16.5 || got > 16.8 {
		t.Errorf("recovery evidence %v, want about 16.6 (ε 5.9e-6)", got)
	}
}

// A configuration without a pool or a bar has no test, rather than one
// that refutes every held slowdown at once.
func TestNoPoolNoRecoveryTest(t *testing.T) {
	for _, c := range []struct{ requests, factor float64 }{{0, 1.5}, {100, 0}, {100, 1}, {-1, 1.5}} {
		cfg := DefaultConfig()
		cfg.MinCostRequests, cfg.DegradedCostFactor = c.requests, c.factor
		if h := recoveryEvidence(cfg); !math.IsInf(h, 1) {
			t.Errorf("MinCostRequests %v, DegradedCostFactor %v: recovery evidence %v, want +Inf (no test)", c.requests, c.factor, h)
		}
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

// healthyAfter feeds g readings of cost at 0.2 requests a second (3 a
// reading), every 15 s from the cut, slow ones at the held cost first, and
// returns when it turns Healthy (-1 if not within the 480 s a pool takes).
func healthyAfter(tr *Tracker, cut time.Time, slowReadings int, cost float64) time.Duration {
	states, _ := observeFromCut(tr, cut, heldThen(slowReadings, cost, 480/15))
	if s := firstHealthy(states); s >= 0 {
		return time.Duration(s) * time.Second
	}
	return -1
}

// A group cut for a slower CPU gets a probe's share: 0.2 requests a second,
// 100 requests in more than eight minutes. Back at full speed, it is read
// as recovered once its few requests refute the held judgement, and its
// recovery clock starts then rather than at the full pool.
func TestACutGroupBackAtFullSpeedIsSeenBeforeItsPoolFills(t *testing.T) {
	tr, cut := cutForCost(t)
	// The judgement moved the baseline on by one 15 s step of its 2-minute
	// half-life, to 0.01166. Each 15 s reading holds 3 requests at 0.010:
	// the log ratio gains 3·ln(0.030/0.01166) − 0.030·(1/0.01166 − 1/0.030)
	// = 1.26 a reading and passes 16.6 on the fourteenth, at 210 s (42
	// requests); RecoverAfter (30 s) of good readings after it, the group
	// is Healthy at 240 s.
	if got := healthyAfter(tr, cut, 0, 0.010); got != 240*time.Second {
		t.Errorf("Healthy %v after the cut (-1ns: not within 480 s), want 240s: 42 requests refute a threefold slowdown, then 30 s of good readings", got)
	}
}

// Requests still slow after the judgement do not delay the recovery's
// detection: the test restarts at each, and counts from the recovery.
// Four slow readings (12 requests) first, then the same as above: Healthy
// 60 s later, at 300 s. Counted from the pool's start, the slow requests'
// −1.88 a reading would have to be outweighed first: refuted on the 24th
// reading, Healthy at 390 s.
func TestARecoveryIsCountedFromWhenItCame(t *testing.T) {
	tr, cut := cutForCost(t)
	if got := healthyAfter(tr, cut, 4, 0.010); got != 300*time.Second {
		t.Errorf("Healthy %v after the cut (-1ns: not within 480 s), want 300s: 60 s slow, then 42 requests at the usual cost and 30 s of good readings", got)
	}
}

// observeFromCut feeds g the readings of costs, one every 15 s from the
// cut at 0.2 requests a second (3 a reading), and returns each status and
// the slowdown held after it.
func observeFromCut(tr *Tracker, cut time.Time, costs []float64) (states []Status, held []float64) {
	for i, c := range costs {
		states = append(states, tr.Observe("g", cut.Add(time.Duration(15*(i+1))*time.Second), costObservation(c, 0.2)))
		r, _ := tr.Record("g")
		held = append(held, r.Slow)
	}
	return states, held
}

// heldThen is n readings' costs: the first slow ones at the held cost
// (0.030), the rest at cost.
func heldThen(slow int, cost float64, n int) []float64 {
	costs := make([]float64, n)
	for i := range costs {
		costs[i] = cost
		if i < slow {
			costs[i] = 0.030
		}
	}
	return costs
}

// A pool that fills across a recovery is not judged as one: 72 slow
// requests and 30 at the usual cost would read as 2.07 times slower, a
// judgement of neither regime, that the test would then have to refute
// afresh. The pool waits while the test weighs the newest requests: 42 of
// them (the fourteenth fast reading, 570 s after the cut) refute the
// threefold slowdown, and the group is Healthy 30 s later.
func TestAPoolAcrossARecoveryWaitsForTheTest(t *testing.T) {
	tr, cut := cutForCost(t)
	states, held := observeFromCut(tr, cut, heldThen(24, 0.010, 40))
	for i, slow := range held {
		if slow > 1.5 && slow != 3 {
			t.Errorf("t=%ds: held slowdown %.3f, want the judged 3 or a recovered one: a pool across the recovery was judged", 15*(i+1), slow)
		}
	}
	if got := firstHealthy(states); got != 600 {
		t.Errorf("Healthy %ds after the cut (-1: never), want 600: refuted on the 42nd fast request at 570 s, then 30 s of good readings", got)
	}
}

// A full pool that clears the group is judged even while the test has a
// run under way: only a pool past the bar may be a mix that misreads a
// recovery. Two costly readings (4 requests at 0.1) restart the test
// after 35 requests at the usual cost each time, so its run never passes;
// the pool of 95 usual and 8 costly requests reads 1.46 times the
// baseline, under the bar, and sets the held threefold slowdown aside.
func TestAPoolUnderTheBarIsJudgedWhileTheTestWeighs(t *testing.T) {
	tr, cut := cutForCost(t)
	type reading struct{ cost, requests float64 }
	var readings []reading
	for range 2 {
		for range 7 {
			readings = append(readings, reading{0.010, 5})
		}
		readings = append(readings, reading{0.100, 4})
	}
	for range 5 {
		readings = append(readings, reading{0.010, 5})
	}
	var before Record
	for i, r := range readings {
		before, _ = tr.Record("g")
		tr.Observe("g", cut.Add(time.Duration(15*(i+1))*time.Second), costObservation(r.cost, r.requests/15))
	}
	if before.Slow != 3 || before.RecoveryRequests != 20 {
		t.Fatalf("before the pool filled: held slowdown %v, the test's run over %v requests; want 3, and a run of 20", before.Slow, before.RecoveryRequests)
	}
	if r, _ := tr.Record("g"); !(r.Slow > 1.4 && r.Slow < 1.5) || math.Abs(r.HeldRequests-103) > 1e-9 {
		t.Errorf("held slowdown %.3f over %v requests, want the full pool's 1.46 over 103, judged while the test's run was open", r.Slow, r.HeldRequests)
	}
}

// A group read as recovered is judged next on its recovered requests
// alone: the slow ones before the test's run were the refuted regime's.
// After 48 slow requests, 42 fast ones refute the cut at 450 s; judged
// with the slow ones, the pool that fills 12 requests later would read
// 1.66 times slower and cut the group again. The next pool is the 102
// fast requests at 750 s, under the bar.
func TestARecoveredGroupIsNotCutAgainForItsSlowPast(t *testing.T) {
	tr, cut := cutForCost(t)
	states, held := observeFromCut(tr, cut, heldThen(16, 0.010, 52))
	if got := firstHealthy(states); got != 480 {
		t.Fatalf("Healthy %ds after the cut (-1: never), want 480: refuted at 450 s, then 30 s of good readings", got)
	}
	for i := 480/15 - 1; i < len(states); i++ {
		if states[i].State != Healthy {
			t.Errorf("t=%ds: %s (%s), want Healthy: a recovered group cut again for requests before its recovery", 15*(i+1), states[i].State, states[i].Why)
		}
	}
	if last := held[len(held)-1]; !(last < 1) {
		t.Errorf("held slowdown %.3f at %ds, want the pool of fast requests judged under 1", last, 15*len(held))
	}
}

// firstHealthy is the seconds from the cut to the first Healthy status,
// -1 if none.
func firstHealthy(states []Status) int {
	for i, s := range states {
		if s.State == Healthy {
			return 15 * (i + 1)
		}
	}
	return -1
}

// A group still past the bar (twice its first baseline, 1.7 times the one
// the judgement moved on) that was judged three times slower is not read
// as recovered: its readings are nearer "as judged" than "as usual", so
// the test restarts at each, and the held judgement stands until the full
// pool.
func TestAGroupStillPastTheBarStaysCut(t *testing.T) {
	tr, cut := cutForCost(t)
	if got := healthyAfter(tr, cut, 0, 0.020); got != -1 {
		t.Errorf("Healthy %v after the cut at twice the usual cost, want still cut within 480 s", got)
	}
}

// A group still as slow as judged is not read as recovered, however often
// its filling pool is looked at: over many draws of exponential costs at
// the held slowdown, the share refuted stays within the test's error
// (5.9e-6; none in 2,000 draws), through the full pool (which may wait
// while the test weighs a run of cheap requests) and up to the next, when
// the baseline will have learned the lasting slowdown.
func TestACutGroupStillSlowIsNotReadAsRecovered(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for draw := range 2000 {
		tr, cut := cutForCost(t)
		// One request a reading: the pool is looked at after every one.
		for i := 1; i < 200; i++ {
			cost := 0.030 * rng.ExpFloat64()
			st := tr.Observe("g", cut.Add(time.Duration(i)*time.Second), costObservation(cost, 1))
			if st.Weight > 0.5 {
				t.Fatalf("draw %d: after %d requests at the held cost the weight is %v, want the cut (at most 0.5) to hold", draw, i, st.Weight)
			}
		}
	}
}

// A record carries the cost the held judgement was made on and the test's
// state, so the next leader refutes it on the same requests; a record
// without them (an older leader's) waits for the full pool, as before.
func TestRecordCarriesTheHeldCostAndTheTest(t *testing.T) {
	learned, cut := cutForCost(t)
	at := func(s int) time.Time { return cut.Add(time.Duration(s) * time.Second) }
	for s := 15; s <= 90; s += 15 {
		learned.Observe("g", at(s), costObservation(0.010, 0.2))
	}
	r, _ := learned.Record("g")
	if r.HeldCost != 0.030 || !(r.RecoveryEvidence > 0) || r.RecoveryRequests != 18 {
		t.Fatalf("record %+v, want the judged pool's 0.030, and the test's evidence over 18 requests", r)
	}
	resumed := handedOver(t, r, at(90))
	r.HeldCost, r.RecoveryEvidence, r.RecoveryCPU, r.RecoveryRequests = 0, 0, 0, 0
	older := handedOver(t, r, at(90))
	for s := 105; s <= 240; s += 15 {
		want := learned.Observe("g", at(s), costObservation(0.010, 0.2))
		if got := resumed.Observe("g", at(s), costObservation(0.010, 0.2)); !sameStatus(got, want) {
			t.Errorf("t=%ds: resumed %+v, the tracker that learned it %+v", s, got, want)
		}
		older.Observe("g", at(s), costObservation(0.010, 0.2))
	}
	if r, _ := learned.Record("g"); r.Slow >= 1.5 {
		t.Errorf("the learning tracker still holds a slowdown of %v after 48 requests at the usual cost", r.Slow)
	}
	if r, _ := older.Record("g"); r.Slow != 3 {
		t.Errorf("a tracker resumed without the test reads a slowdown of %v, want the held 3 until the pool fills", r.Slow)
	}
}

// A slowdown's evidence names the requests it was judged on, so a log
// tells a full pool's judgement from the test's: a group judged 4.5 times
// slower on 450 requests says so; once 75 requests at a cost nearer its
// usual refute that, the held slowdown is theirs (1.43, under the bar)
// and the record carries the 75.
func TestTheEvidenceNamesTheRequestsBehindASlowdown(t *testing.T) {
	tr := New(DefaultConfig())
	for i := range 4 {
		tr.Observe("g", secondAt(15*i), costObservation(0.010, 30))
	}
	s := tr.Observe("g", secondAt(60), costObservation(0.045, 30))
	if want := "CPU per request 4.50× its baseline over 450 requests"; s.State != Degraded || s.Why != want {
		t.Fatalf("cut: %s %q, want Degraded %q", s.State, s.Why, want)
	}
	for k := 1; k <= 25; k++ { // 3 requests a reading
		tr.Observe("g", secondAt(60+15*k), costObservation(0.0185, 0.2))
	}
	r, _ := tr.Record("g")
	if r.HeldRequests != 75 || !(r.Slow > 1.4 && r.Slow < 1.5) {
		t.Errorf("after 75 requests at 0.0185: held slowdown %.3f over %v requests, want the test's 75 at about 1.43", r.Slow, r.HeldRequests)
	}
}

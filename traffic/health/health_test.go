package health

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestHysteresis(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tr := New(DefaultConfig())
	steps := []struct {
		t        float64
		p95, err float64
		want     State
		why      string
	}{
		{-1, math.NaN(), math.NaN(), Healthy, "the group is learned; its first reading holds no requests"},
		{0, 100, 0, Healthy, "first reading sets the 100 ms baseline"},
		{1, 110, 0, Healthy, "within 2× baseline"},
		{2, 250, 0, Degraded, "p95 above 2× baseline: Degraded at once"},
		{3, 600, 0.6, Degraded, "severe, but not yet for 5 s"},
		{6, 600, 0.6, Degraded, "severe for 3 s"},
		{8.5, 600, 0.6, Unhealthy, "severe for 5.5 s: Unhealthy"},
		{9, math.NaN(), math.NaN(), Unhealthy, "no traffic, no evidence"},
		{12, 100, 0, Degraded, "good evidence: Degraded, probe traffic"},
		{30, 100, 0, Degraded, "good for 18 s: not yet"},
		{42.5, 100, 0, Healthy, "good for 30.5 s: Healthy"},
	}
	for _, s := range steps {
		got := tr.Observe("g", at(s.t), Observation{P95Ms: s.p95, ErrorRate: s.err, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(), P95Rate: 1000})
		if got.State != s.want {
			t.Fatalf("t=%vs: %s, want %s (%s)", s.t, got.State, s.want, s.why)
		}
		switch got.State {
		case Healthy:
			// Just recovered: the weight climbs back from the Degraded one.
			if got.Weight <= 0 || got.Weight > 1 {
				t.Errorf("t=%vs: Healthy weight %v outside (0, 1]", s.t, got.Weight)
			}
		case Unhealthy:
			if got.Weight != 0 {
				t.Errorf("t=%vs: Unhealthy weight %v", s.t, got.Weight)
			}
		case Degraded:
			if got.Weight < 0.1 || got.Weight > 1 {
				t.Errorf("t=%vs: Degraded weight %v outside [MinWeight, 1]", s.t, got.Weight)
			}
		}
	}
}

func TestUnhealthyWithoutTrafficGoesHalfOpen(t *testing.T) {
	t0 := time.Unix(0, 0)
	tr := New(DefaultConfig())
	tr.Observe("g", t0, Observation{P95Ms: 100, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	tr.Observe("g", t0.Add(time.Second), Observation{P95Ms: 100, ErrorRate: 0.9, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	if s := tr.Observe("g", t0.Add(7*time.Second), Observation{P95Ms: 100, ErrorRate: 0.9, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()}); s.State != Unhealthy {
		t.Fatalf("state %s, want Unhealthy after 6 s of 90%% errors", s.State)
	}
	if s := tr.Observe("g", t0.Add(20*time.Second), Observation{P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()}); s.State != Unhealthy {
		t.Errorf("state %s 13 s later without data, want still Unhealthy", s.State)
	}
	if s := tr.Observe("g", t0.Add(38*time.Second), Observation{P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()}); s.State != Degraded || s.Weight != 0.1 {
		t.Errorf("state %s weight %v after 31 s without data, want Degraded at the minimum weight", s.State, s.Weight)
	}
}

func TestScoreDecays(t *testing.T) {
	t0 := time.Unix(0, 0)
	tr := New(DefaultConfig())
	tr.Observe("g", t0.Add(-time.Second), Observation{P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	tr.Observe("g", t0, Observation{P95Ms: 100, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(), P95Rate: 1000})
	a := tr.Observe("g", t0.Add(time.Second), Observation{P95Ms: 180, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(), P95Rate: 1000})
	b := tr.Observe("g", t0.Add(20*time.Second), Observation{P95Ms: 180, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(), P95Rate: 1000})
	// The quality at 180 ms is 1 − (180/baseline − 1); the score moves toward
	// it with a 10 s half-life.
	q := 1 - (180/a.BaselineMs - 1)
	if !(a.Score > b.Score && b.Score > q) {
		t.Errorf("scores %v then %v: want decaying toward %v", a.Score, b.Score, q)
	}
	want := q + (a.Score-q)*math.Exp2(-19.0/10)
	if math.Abs(b.Score-want) > 1e-12 {
		t.Errorf("score %v, want %v", b.Score, want)
	}
}

func TestSharedSlowdownDropsNobody(t *testing.T) {
	t0 := time.Unix(0, 0)
	tr := New(DefaultConfig())
	tr.Observe("g", t0.Add(-time.Second), Observation{P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN()})
	tr.Observe("g", t0, Observation{P95Ms: 100, ErrorRate: 0, PeerP95Ms: 100, PeerErrorRate: 0, P95Rate: 1000})
	// Every group of the component slows to 10× and sees 60% errors, for 20 s.
	var st Status
	for s := 1; s <= 20; s++ {
		st = tr.Observe("g", t0.Add(time.Duration(s)*time.Second), Observation{P95Ms: 1000, ErrorRate: 0.6, PeerP95Ms: 1000, PeerErrorRate: 0.6, P95Rate: 1000})
	}
	if st.State != Healthy {
		t.Errorf("state %s after a slowdown every peer shares, want Healthy", st.State)
	}
	// The same group alone at 10× its peers is Degraded at once.
	st = tr.Observe("g", t0.Add(21*time.Second), Observation{P95Ms: 1000, ErrorRate: 0, PeerP95Ms: 100, PeerErrorRate: 0, P95Rate: 1000})
	if st.State != Degraded {
		t.Errorf("state %s when worse than its peers, want Degraded", st.State)
	}
}

// A quiet group's cost readings are noisy: at 7 requests per second and a
// 5 s scrape, each holds 35 requests of exponential work, off by about a
// sixth. These readings are a fast node's in the lab (6 ms of work per
// request), the first counted a low one: judged one by one against a
// baseline seeded from it, the next read as a slowdown of 1.56 and the one
// after as 2.1, and the node stayed Degraded for the rest of the run. Pooled to MinCostRequests it stays
// Healthy; and the same group whose cost really triples is still cut,
// within the intervals a pool takes.
func TestAQuietGroupIsJudgedOnPooledCost(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(i int) time.Time { return t0.Add(time.Duration(5*i) * time.Second) }
	obs := func(cost float64) Observation {
		return Observation{P95Ms: math.NaN(), ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: 0,
			Utilization: 0.3, CostPerRequest: cost, PeerCostChange: 1, CostRate: 7}
	}
	// The first observation of a group has no interval, so holds no
	// requests; the low reading is the first counted.
	readings := []float64{0.0060, 0.0036, 0.0056, 0.0075, 0.0065, 0.0060, 0.0048, 0.0083, 0.0054, 0.0055, 0.0059, 0.0070, 0.0063, 0.0081, 0.0058}
	tr := New(DefaultConfig())
	for i, c := range readings {
		if s := tr.Observe("g", at(i), obs(c)); s.State != Healthy {
			t.Fatalf("reading %d (%.4f s per request): %s, want Healthy: the readings are noise around 6 ms", i, c, s.State)
		}
	}
	var s Status
	for i := len(readings); i < len(readings)+3; i++ { // 105 requests
		s = tr.Observe("g", at(i), obs(0.018))
	}
	if s.State != Degraded {
		t.Errorf("threefold cost for three intervals (105 requests): %s, want Degraded", s.State)
	}
	if !strings.HasPrefix(s.Why, "CPU per request ") || !strings.HasSuffix(s.Why, "× its baseline over 105 requests") {
		t.Errorf("why %q, want the cost evidence and the 105 requests of the pool it was judged on", s.Why)
	}
}

// A group that is not Healthy says why, from the readings past their bars,
// and keeps saying it while it recovers; a Healthy one says nothing. The
// next leader inherits the evidence with the state.
func TestAGroupSaysWhyItIsNotHealthy(t *testing.T) {
	at, obs := secondAt, quietObservation
	tr := New(DefaultConfig())
	tr.Observe("g", at(-5), obs(math.NaN(), math.NaN()))
	if s := tr.Observe("g", at(0), obs(10, 0)); s.Why != "" {
		t.Errorf("Healthy group says %q", s.Why)
	}
	s := tr.Observe("g", at(5), obs(30, 0.08))
	if want := "load-free p95 3.00× its baseline, errors 8.0% above its peers'"; s.State != Degraded || s.Why != want {
		t.Errorf("%s, %q; want Degraded, %q", s.State, s.Why, want)
	}
	if s = tr.Observe("g", at(10), obs(10, 0)); s.State != Degraded || s.Why == "" {
		t.Errorf("recovering: %s, %q; want Degraded with its last evidence", s.State, s.Why)
	}
	r, _ := tr.Record("g")
	next := New(DefaultConfig())
	if err := next.Restore("g", r, at(10)); err != nil {
		t.Fatal(err)
	}
	if got := next.Status("g").Why; got != s.Why {
		t.Errorf("the next leader's evidence %q, want %q", got, s.Why)
	}
	if s = tr.Observe("g", at(45), obs(10, 0)); s.State != Healthy || s.Why != "" {
		t.Errorf("after RecoverAfter of good readings: %s, %q; want Healthy, no evidence", s.State, s.Why)
	}
}

// A quiet group's p95 readings are noisy too. These are the lab's slow
// node on live-demo at seed 1 (load-free p95 ms and requests per second,
// every 5 s, about 30 requests each, at 22–41% of its limit): judged one
// by one, the last reads 2.4 times a baseline seeded from the first and
// the node is Degraded; pooled to MinLatencyRequests, the second pool
// reads 1.66 times the first and it stays Healthy. A lasting threefold
// p95 is still Degraded once pooled.
func TestAQuietGroupsLatencyIsJudgedPooled(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(i int) time.Time { return t0.Add(time.Duration(5*i) * time.Second) }
	readings := []struct{ p95, rate float64 }{{math.NaN(), 0}, {139.4, 6.8}, {123.1, 6.4}, {125.2, 7.2}, {125.2, 5.8}, {159.1, 4.6}, {216.5, 6.0}, {339.5, 6.2}}
	run := func(cfg Config) Status {
		tr := New(cfg)
		var s Status
		for i, r := range readings {
			s = tr.Observe("slow", at(i), Observation{P95Ms: r.p95, ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: 0, Utilization: 0.3, P95Rate: r.rate})
		}
		return s
	}
	if s := run(DefaultConfig()); s.State != Healthy {
		t.Errorf("pooled: %s (%s), want Healthy", s.State, s.Why)
	}
	eachAlone := DefaultConfig()
	eachAlone.MinLatencyRequests = 0
	if s := run(eachAlone); s.State != Degraded {
		t.Errorf("each reading judged alone: %s, want Degraded (the cut the pooling prevents)", s.State)
	}
	for range 4 {
		readings = append(readings, struct{ p95, rate float64 }{390, 6.5})
	}
	if s := run(DefaultConfig()); s.State != Degraded {
		t.Errorf("p95 tripled over 130 requests: %s, want Degraded", s.State)
	}
}

// A slowdown judged from CPU per request is evidence only while readings
// come: a group cut to Unhealthy gets no traffic, so no reading, and after
// RecoverAfter it goes back to Degraded for probe traffic, its last judged
// slowdown still bounding its weight.
func TestAGroupWithoutReadingsIsProbedAgain(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	obs := func(cost, errRate, rate float64) Observation {
		return Observation{P95Ms: math.NaN(), ErrorRate: errRate, PeerP95Ms: math.NaN(), PeerErrorRate: 0,
			Utilization: 0.3, CostPerRequest: cost, PeerCostChange: 1, CostRate: rate}
	}
	tr := New(DefaultConfig())
	for i := range 3 {
		tr.Observe("g", at(5*i), obs(0.010, 0, 30))
	}
	for i := 3; i < 6; i++ { // tripled and failing: Unhealthy after 5 s
		tr.Observe("g", at(5*i), obs(0.030, 0.9, 30))
	}
	if s := tr.Status("g"); s.State != Unhealthy {
		t.Fatalf("tripled cost and 90%% errors for 10 s: %s, want Unhealthy", s.State)
	}
	nothing := Observation{P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(),
		Utilization: 0, CostPerRequest: math.NaN(), PeerCostChange: math.NaN(), CostRate: 0}
	var s Status
	for i := 6; i <= 13; i++ {
		s = tr.Observe("g", at(5*i), nothing)
	}
	if s.State != Degraded || s.Weight > 1.0/3+1e-9 {
		t.Errorf("40 s without traffic after being cut: %s weight %v; want Degraded (probed) at most 1/3", s.State, s.Weight)
	}
}

// A node that slows down needs more CPU per request: that is sickness at
// any load, where latency alone is no evidence above BusyUtilization. The
// group is cut at the next observation to the share that keeps its
// utilisation, and restored after it recovers.
func TestCostPerRequestTellsBrokenFromLoaded(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tr := New(DefaultConfig())
	obs := func(cost, peerChange, util float64) Observation {
		return Observation{P95Ms: 400, ErrorRate: 0, PeerP95Ms: 100, PeerErrorRate: 0, Utilization: util, CostPerRequest: cost, PeerCostChange: peerChange, CostRate: 30}
	}
	for i := range 4 {
		if s := tr.Observe("g", at(15*float64(i)), obs(0.010, 1, 0.9)); s.State != Healthy {
			t.Fatalf("busy group with a steady cost is %s; its slowness is load", s.State)
		}
	}
	s := tr.Observe("g", at(60), obs(0.030, 1, 0.9))
	if s.State != Degraded || s.Weight > 1.0/3+1e-9 {
		t.Fatalf("threefold cost: %s weight %v; want Degraded at most 1/3 at once", s.State, s.Weight)
	}
	// Its peers slowed as much: a heavier mix everywhere, nobody's fault.
	peers := New(DefaultConfig())
	for i := range 4 {
		peers.Observe("g", at(15*float64(i)), obs(0.010, 1, 0.3))
	}
	if s := peers.Observe("g", at(60), Observation{P95Ms: math.NaN(), ErrorRate: 0, PeerErrorRate: 0, PeerP95Ms: math.NaN(), Utilization: 0.3, CostPerRequest: 0.030, PeerCostChange: 3, CostRate: 30}); s.State != Healthy {
		t.Errorf("every group's cost tripled: %s, want Healthy", s.State)
	}
	// Recovery: the cost falls back; Healthy after RecoverAfter (30 s), and
	// its weight climbs back by at most ×1.5 per 30 s.
	tr.Observe("g", at(75), obs(0.010, 1, 0.5))
	tr.Observe("g", at(90), obs(0.010, 1, 0.5))
	s = tr.Observe("g", at(106), obs(0.010, 1, 0.5))
	if s.State != Healthy {
		t.Fatalf("31 s after recovering: %s, want Healthy", s.State)
	}
	prev := s.Weight
	for k := 1; k <= 8; k++ {
		w := tr.Observe("g", at(106+30*float64(k)), obs(0.010, 1, 0.5)).Weight
		if w > 1.5*prev+1e-9 {
			t.Fatalf("weight jumped ×%.2f in 30 s while restoring", w/prev)
		}
		prev = w
	}
	if prev != 1 {
		t.Errorf("weight %v four minutes after recovering; want 1", prev)
	}
}

// An infinite measurement is no measurement: taken as the latency baseline,
// it made every later ratio ∞/∞ and the group's weight NaN for good.
func TestInfiniteObservationsAreUnknown(t *testing.T) {
	t0 := time.Unix(0, 0)
	tr := New(DefaultConfig())
	nan := math.NaN()
	first := tr.Observe("g", t0, Observation{P95Ms: math.Inf(1), ErrorRate: 0, PeerP95Ms: math.Inf(1), PeerErrorRate: nan, Utilization: nan, CostPerRequest: math.Inf(1), PeerCostChange: nan})
	if first.State != Healthy || first.Weight != 1 || !math.IsNaN(first.BaselineMs) {
		t.Fatalf("after an infinite p95: %+v, want Healthy at weight 1 with no baseline yet", first)
	}
	for i := 1; i <= 40; i++ {
		st := tr.Observe("g", t0.Add(time.Duration(i)*time.Second), Observation{P95Ms: 100, ErrorRate: 0, PeerP95Ms: 100, PeerErrorRate: 0, Utilization: 0.3, CostPerRequest: 0.01, PeerCostChange: 1, P95Rate: 1000})
		if math.IsNaN(st.Weight) || math.IsNaN(st.Score) || st.State != Healthy {
			t.Fatalf("%d s later: %+v, want Healthy with a number for weight and score", i, st)
		}
	}
	if got := tr.Status("g").BaselineMs; got != 100 {
		t.Errorf("baseline %v ms, want 100 from the finite samples", got)
	}
}

// secondAt is s seconds after the Unix epoch.
func secondAt(s int) time.Time { return time.Unix(int64(s), 0) }

// quietObservation is a group at a fifth of its limit, 100 requests a
// second, with its p95 and error rate and no peers' latency.
func quietObservation(p95, errRate float64) Observation {
	return Observation{P95Ms: p95, ErrorRate: errRate, PeerP95Ms: math.NaN(), PeerErrorRate: 0, Utilization: 0.2, P95Rate: 100}
}

package forecast

import (
	"math"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

func TestBoundedShift(t *testing.T) {
	cases := []struct {
		name      string
		shares    []float64
		forecasts []float64
		check     func([]float64) bool
		why       string
	}{
		{"small imbalance corrected in one step", []float64{0.5, 0.5}, []float64{1.1, 0.9},
			// Utilisation after the step is load × share; it should be (nearly) equal.
			func(w []float64) bool { return math.Abs(1.1*w[0]-0.9*w[1]) < 0.01 },
			"new shares ∝ 1/load: utilisation equal afterwards"},
		{"large imbalance bounded", []float64{0.5, 0.5}, []float64{2.0, 0.2},
			func(w []float64) bool { return w[1]/w[0] <= 1.5*1.5+1e-9 && w[1] > w[0] },
			"each share moves by at most ×1.5 (ratio ≤ 2.25)"},
		{"unknown forecast keeps proportion", []float64{0.25, 0.75}, []float64{math.NaN(), math.NaN()},
			func(w []float64) bool { return w[0] == 0.25 && w[1] == 0.75 }, "no forecast, no change"},
	}
	for _, tc := range cases {
		got := boundedShift(tc.shares, tc.forecasts, 0.5, 0.01)
		if sum := got[0] + got[1]; math.Abs(sum-1) > 1e-12 || !tc.check(got) {
			t.Errorf("%s: %v (%s)", tc.name, got, tc.why)
		}
	}
}

func replicaAt(name, node string, cpu, rps float64) traffic.Replica {
	return traffic.Replica{Name: name, Component: "c", Node: node, Ready: true, CPU: cpu, CPULimit: 1, Requests: rps}
}

// Two nodes, the slow one needing twice the CPU per request: over cycles the
// shares move away from it until utilisation is even, each step bounded.
func TestSharesMoveAwayFromSlowNode(t *testing.T) {
	e := NewComponent(DefaultConfig())
	shares := map[string]float64{"fast": 0.5, "slow": 0.5}
	const rps = 100.0
	var est []GroupEstimate
	for range 12 {
		groups := []traffic.Group{
			{Component: "c", Node: "fast", Replicas: []traffic.Replica{replicaAt("f1", "fast", shares["fast"]*rps*0.005, shares["fast"]*rps)}},
			{Component: "c", Node: "slow", Replicas: []traffic.Replica{replicaAt("s1", "slow", shares["slow"]*rps*0.010, shares["slow"]*rps)}},
		}
		prev := shares["slow"]
		est = e.Estimate(groups, true)
		shares["fast"], shares["slow"] = est[0].Share, est[1].Share
		if shares["slow"] < prev/1.5-1e-9 {
			t.Fatalf("slow share fell from %v to %v: more than the bounded step", prev, shares["slow"])
		}
	}
	if math.Abs(shares["slow"]-1.0/3) > 0.02 {
		t.Errorf("slow share %v, want ≈ 1/3 (equal utilisation)", shares["slow"])
	}
}

func TestWarmStart(t *testing.T) {
	e := NewComponent(DefaultConfig())
	groups := func(extra ...traffic.Replica) []traffic.Group {
		a := traffic.Group{Component: "c", Node: "n1", Replicas: []traffic.Replica{replicaAt("a", "n1", 0.4, 40)}}
		b := traffic.Group{Component: "c", Node: "n2", Replicas: []traffic.Replica{replicaAt("b", "n2", 0.8, 40)}}
		for _, r := range extra {
			if r.Node == "n1" {
				a.Replicas = append(a.Replicas, r)
			} else {
				b.Replicas = append(b.Replicas, r)
			}
		}
		return []traffic.Group{a, b}
	}
	for range 6 {
		e.Estimate(groups(), true)
	}
	// A new replica on n2 with no CPU data yet.
	est := e.Estimate(groups(replicaAt("new", "n2", math.NaN(), math.NaN())), true)
	var fc traffic.ReplicaForecast
	for _, f := range est[1].Forecasts {
		if f.Replica == "new" {
			fc = f
		}
	}
	if fc.WarmStartedFrom != "b" {
		t.Errorf("warm started from %q, want b (same node)", fc.WarmStartedFrom)
	}
	if !(fc.Share > 0) {
		t.Errorf("new replica share %v, want a warm start, not zero", fc.Share)
	}
	// b serves half the requests at 80% CPU: 1.6 utilisation per unit share;
	// the new replica starts from that load at its (mean) share.
	if want := 1.6 * fc.Share; math.IsNaN(fc.Forecast) || math.Abs(fc.Forecast-want) > 0.05 {
		t.Errorf("new replica forecast %v, want b's load × its share = %v", fc.Forecast, want)
	}
	if est[1].Basis != BasisWarmStart {
		t.Errorf("basis %q, want %q", est[1].Basis, BasisWarmStart)
	}
}

// One replica whose request count is missing (NaN) must not blind the
// filters of its peers: they still learn from the interval, with the
// missing replica's traffic taken at the share ARTT last gave it.
func TestMissingRequestCountSkipsOnlyThatReplica(t *testing.T) {
	c := NewComponent(DefaultConfig())
	group := func(name, node string, cpu, rps float64) traffic.Group {
		return traffic.Group{Component: "c", Node: node, Replicas: []traffic.Replica{replicaAt(name, node, cpu, rps)}}
	}
	for range 5 {
		c.Estimate([]traffic.Group{group("a", "n1", 0.4, 40), group("b", "n2", 0.4, 40)}, true)
	}
	before := c.replicas["a"].filter.Observations()
	c.Estimate([]traffic.Group{group("a", "n1", 0.4, 40), group("b", "n2", math.NaN(), math.NaN())}, true)
	if got := c.replicas["a"].filter.Observations(); got != before+1 {
		t.Errorf("a's filter has %d observations after an interval where only b's counts were missing; want %d", got, before+1)
	}
	// a served 40 of about 80 requests at 40% CPU: 0.4 per half share = 0.8.
	if f := c.replicas["a"].filter.Forecast(); math.Abs(f-0.8) > 0.05 {
		t.Errorf("a's forecast %v; want about 0.8 utilisation per unit share", f)
	}
}

// A replica whose forecast says it is much more loaded than its peers
// still keeps a floor share, so it keeps receiving requests and its
// filter keeps observing (a share rounded to 0% in Istio would starve it).
func TestShareFloorKeepsObservationsFlowing(t *testing.T) {
	cfg := DefaultConfig()
	got := boundedShift([]float64{0.02, 0.49, 0.49}, []float64{50, 1, 1}, cfg.MaxStep, cfg.UtilizationFloor)
	got = floorShares(got, cfg.MinShare)
	if floor := cfg.MinShare / 3; got[0] < floor-1e-12 {
		t.Errorf("share %v below the floor %v (MinShare × the fair share)", got[0], floor)
	}
	if s := got[0] + got[1] + got[2]; math.Abs(s-1) > 1e-12 {
		t.Errorf("shares sum to %v", s)
	}
}

// The bound holds end to end: after renormalising, no share moves by more
// than a factor 1 + MaxStep in one cycle (0.5/0.5 must not become
// 0.692/0.308, a fall of ×1.625).
func TestBoundHoldsAfterRenormalising(t *testing.T) {
	cases := [][2][]float64{
		{{0.5, 0.5}, {0.1, 10}},
		{{0.2, 0.3, 0.5}, {100, 0.01, 1}},
		{{0.9, 0.05, 0.05}, {50, 0.02, 0.02}},
	}
	for _, c := range cases {
		shares, loads := c[0], c[1]
		got := boundedShift(shares, loads, 0.5, 0.01)
		sum := 0.0
		for i := range got {
			sum += got[i]
			if r := got[i] / shares[i]; r > 1.5+1e-9 || r < 1/1.5-1e-9 {
				t.Errorf("shares %v loads %v: share %d moved ×%.3f, beyond ×1.5", shares, loads, i, r)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("shares sum to %v", sum)
		}
	}
}

// A new estimator seeded with where the last one left off (its node
// shares) starts there: its first step moves every share by at most the
// bound from the seed, where an unseeded one starts from fair shares.
func TestSeedStartsFromTheLastShares(t *testing.T) {
	groups := func(fast, slow float64) []traffic.Group {
		const rps = 100.0
		return []traffic.Group{
			{Component: "c", Node: "fast", Replicas: []traffic.Replica{replicaAt("f1", "fast", fast*rps*0.005, fast*rps), replicaAt("f2", "fast", fast*rps*0.005, fast*rps)}},
			{Component: "c", Node: "slow", Replicas: []traffic.Replica{replicaAt("s1", "slow", slow*rps*0.020, slow*rps)}},
		}
	}
	settled := NewComponent(DefaultConfig())
	shares := map[string]float64{"fast": 1.0 / 3, "slow": 1.0 / 3}
	for range 20 {
		est := settled.Estimate(groups(shares["fast"]/2, shares["slow"]), true)
		shares["fast"], shares["slow"] = est[0].Share, est[1].Share
	}
	if shares["slow"] > 0.2 {
		t.Fatalf("settled slow share %.3f, want well below a third (it needs four times the CPU)", shares["slow"])
	}
	last := settled.NodeShares()
	if math.Abs(last["slow"]-shares["slow"]) > 1e-9 || math.Abs(last["fast"]+last["slow"]-1) > 1e-9 {
		t.Fatalf("NodeShares %v, the estimates' shares %v", last, shares)
	}
	resumed := NewComponent(DefaultConfig())
	resumed.Seed(last)
	first := resumed.Estimate(groups(shares["fast"]/2, shares["slow"]), true)
	for i, node := range []string{"fast", "slow"} {
		if r := first[i].Share / last[node]; r > 1.5+1e-9 || r < 1/1.5-1e-9 {
			t.Errorf("%s: first share %.3f after a seed of %.3f: a step of ×%.2f, past the bound 1.5", node, first[i].Share, last[node], r)
		}
	}
	cold := NewComponent(DefaultConfig()).Estimate(groups(shares["fast"]/2, shares["slow"]), true)
	if r := cold[1].Share / last["slow"]; r <= 1.5 {
		t.Errorf("an unseeded estimator's slow share %.3f is within the bound of %.3f: the test shows nothing", cold[1].Share, last["slow"])
	}
}

package atpm

import (
	"math"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

func group(node string, reps ...traffic.Replica) traffic.Group {
	for i := range reps {
		reps[i].Node = node
		if reps[i].Name == "" {
			reps[i].Name = node + "-" + string(rune('a'+i))
		}
	}
	return traffic.Group{Component: "c", Node: node, Replicas: reps}
}

func rep(cpu, rps float64) traffic.Replica {
	return traffic.Replica{CPU: cpu, Requests: rps, CPULimit: 1, Ready: true}
}

func TestEstimateHandWorked(t *testing.T) {
	e := NewComponent(DefaultConfig())
	// Per-request CPU: fast 0.01 s, slow 0.02 s (twice as slow): capacities
	// 1/0.01 = 100 and 1/0.02 = 50 requests per second → shares 2/3 and 1/3.
	got := e.Estimate([]traffic.Group{group("fast", rep(0.5, 50)), group("slow", rep(1.0, 50))}, true)
	if math.Abs(got[0].Share-2.0/3) > 1e-12 || math.Abs(got[1].Share-1.0/3) > 1e-12 {
		t.Errorf("shares %v / %v, want 2/3 / 1/3", got[0].Share, got[1].Share)
	}
	if got[0].Basis != BasisMeasured || got[0].Load != 0.01 {
		t.Errorf("fast group %+v, want measured load 0.01", got[0])
	}
}

func TestReplicasWithoutRequestsAreExcludedFromLoad(t *testing.T) {
	e := NewComponent(DefaultConfig())
	// The idle replica's CPU (0.3, no requests) must not raise the load.
	got := e.Estimate([]traffic.Group{group("n1", rep(0.5, 50), rep(0.3, 0))}, true)
	if got[0].Load != 0.01 {
		t.Errorf("load %v, want 0.5/50 = 0.01", got[0].Load)
	}
}

func TestMissingDataRules(t *testing.T) {
	e := NewComponent(DefaultConfig())
	e.Estimate([]traffic.Group{group("a", rep(0.5, 50)), group("b", rep(1.0, 50))}, true)
	// Next cycle: b reports nothing, c is new and reports nothing.
	got := e.Estimate([]traffic.Group{
		group("a", rep(0.4, 40)),
		group("b", rep(math.NaN(), math.NaN())),
		group("c", rep(math.NaN(), 0)),
	}, true)
	if got[1].Basis != BasisPrevious || got[1].Load != 0.02 {
		t.Errorf("b = %+v, want its previous EWMA 0.02", got[1])
	}
	if got[2].Basis != BasisMeanOfValid || math.Abs(got[2].Load-got[0].Load) > 1e-15 {
		t.Errorf("c = %+v, want the mean of the valid groups' loads (only a: %v)", got[2], got[0].Load)
	}
}

func TestAllZeroSplitsEquallyPerReplica(t *testing.T) {
	e := NewComponent(DefaultConfig())
	got := e.Estimate([]traffic.Group{group("a", rep(0, 0), rep(0, 0)), group("b", rep(0, 0))}, true)
	if got[0].Share != 2.0/3 || got[1].Share != 1.0/3 || got[0].Basis != BasisEqual {
		t.Errorf("shares %+v, want an equal split per replica (2/3, 1/3)", got)
	}
}

func TestAlphaAdaptsToVolatility(t *testing.T) {
	cfg := DefaultConfig()
	calm := NewComponent(cfg)
	jumpy := NewComponent(cfg)
	var a, b []Share
	for i := range 6 {
		a = calm.Estimate([]traffic.Group{group("n", rep(0.5, 50))}, true)
		load := 0.5
		if i%2 == 1 {
			load = 1.5
		}
		b = jumpy.Estimate([]traffic.Group{group("n", rep(load, 50))}, true)
	}
	if a[0].Alpha != cfg.AlphaMax {
		t.Errorf("calm load α = %v, want AlphaMax %v", a[0].Alpha, cfg.AlphaMax)
	}
	if !(b[0].Alpha < a[0].Alpha) || b[0].Alpha < cfg.AlphaMin {
		t.Errorf("jumpy load α = %v, want below %v and ≥ %v", b[0].Alpha, a[0].Alpha, cfg.AlphaMin)
	}
}

// On the event path (no fresh measurements) a group that appears, for
// example a new pod on a node without one, must take the mean of the
// existing estimates, not force an equal split that throws them away.
func TestNewGroupOnTheEventPathKeepsTheEstimates(t *testing.T) {
	e := NewComponent(DefaultConfig())
	e.Estimate([]traffic.Group{group("fast", rep(0.5, 50)), group("slow", rep(1.0, 50))}, true)
	got := e.Estimate([]traffic.Group{group("fast", rep(0.5, 50)), group("slow", rep(1.0, 50)), group("new", rep(math.NaN(), math.NaN()))}, false)
	if got[0].Basis == BasisEqual || math.Abs(got[0].Share/got[1].Share-2) > 1e-9 {
		t.Errorf("fast %v (%s), slow %v: want the 2:1 estimate kept", got[0].Share, got[0].Basis, got[1].Share)
	}
	// The new group takes the mean load (0.015 s): capacity 66.7 against
	// 100 and 50.
	if got[2].Basis != BasisMeanOfValid || math.Abs(got[2].Share-(1/0.015)/(100+50+1/0.015)) > 1e-9 {
		t.Errorf("new group share %v (%s); want the mean of the estimates", got[2].Share, got[2].Basis)
	}
}

package allocate

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/ntam"
)

func mustPolicy(t testing.TB, name string, opts Options) traffic.Policy {
	t.Helper()
	p, err := New(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEveryPolicyProducesValidDeterministicAllocations(t *testing.T) {
	s := chainCluster(1, 6, 4, 9)
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			serial := DefaultOptions()
			serial.Parallelism = 1
			parallel := DefaultOptions()
			parallel.Parallelism = 8
			a, err := mustPolicy(t, name, serial).Allocate(s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := mustPolicy(t, name, parallel).Allocate(s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatal("serial and parallel runs differ")
			}
			if len(a.Routes) != 3 {
				t.Errorf("%d routes, want one per called component (3)", len(a.Routes))
			}
			if err := checkAllocation(s, a); err != nil {
				t.Error(err)
			}
		})
	}
	if _, err := New("fastest", DefaultOptions()); err == nil || !strings.Contains(err.Error(), "fastest") {
		t.Errorf("unknown policy: error %v, want one naming it", err)
	}
}

// pair builds A → B with A on n1 and n2, B on n1 and n2; B's replica on
// n2 costs costRatio× more CPU per request.
func pair(costRatio float64, delay12 float64) traffic.Snapshot {
	s := traffic.Snapshot{
		At:         time.Unix(100, 0),
		Nodes:      []traffic.Node{{Name: "n1", Ready: true, Locality: "r/z/n1"}, {Name: "n2", Ready: true, Locality: "r/z/n2"}},
		Components: []traffic.Component{{Name: "A"}, {Name: "B"}},
		Calls:      []graph.Call{{From: "A", To: "B", Rate: 100}},
		Delays:     []graph.Delay{{From: "n1", To: "n2", Ms: delay12}, {From: "n2", To: "n1", Ms: delay12}},
	}
	for _, n := range []string{"n1", "n2"} {
		s.Replicas = append(s.Replicas, traffic.Replica{Name: "a-" + n, Component: "A", Node: n, Ready: true, CPU: 0.1, CPULimit: 1, Requests: 50, LatencyP95: 5, ErrorRate: 0})
	}
	s.Replicas = append(s.Replicas,
		traffic.Replica{Name: "b-n1", Component: "B", Node: "n1", Ready: true, CPU: 0.25, CPULimit: 1, Requests: 50, LatencyP95: 5, ErrorRate: 0},
		traffic.Replica{Name: "b-n2", Component: "B", Node: "n2", Ready: true, CPU: 0.25 * costRatio, CPULimit: 1, Requests: 50, LatencyP95: 5, ErrorRate: 0},
	)
	return s
}

func groupShare(t *testing.T, a traffic.Allocation, component, node string) float64 {
	t.Helper()
	r, ok := a.Route(component)
	if !ok {
		t.Fatalf("no route for %s", component)
	}
	for _, g := range r.Groups {
		if g.Node == node {
			return g.Share
		}
	}
	return 0
}

func TestHEARTGivesTheSlowNodeLess(t *testing.T) {
	a, err := mustPolicy(t, "heart", DefaultOptions()).Allocate(pair(2, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	// Loads 0.005 and 0.01 s per request: capacities 200 and 100 → 2/3, 1/3.
	if got := groupShare(t, a, "B", "n2"); math.Abs(got-1.0/3) > 1e-9 {
		t.Errorf("slow group share %v, want 1/3", got)
	}
	r, _ := a.Route("B")
	// n1 sends all its half locally; n2 keeps 1/3 of the total locally and
	// sends the rest (1/6 of the total, 1/3 of its own) to n1.
	if got := r.Fraction("n2", "n1"); math.Abs(got-1.0/3) > 1e-9 {
		t.Errorf("n2 → n1 fraction %v, want 1/3", got)
	}
	if got := r.Fraction("n1", "n1"); math.Abs(got-1) > 1e-9 {
		t.Errorf("n1 → n1 fraction %v, want 1 (local, no delay)", got)
	}
}

func TestBaselinesHandWorked(t *testing.T) {
	s := pair(2, 10)
	// A third B replica on n1: fair shares 2/3 (n1) and 1/3 (n2).
	s.Replicas = append(s.Replicas, traffic.Replica{Name: "b-n1-2", Component: "B", Node: "n1", Ready: true, CPU: 0.25, CPULimit: 1, Requests: 50, LatencyP95: math.NaN(), ErrorRate: math.NaN()})
	cases := []struct {
		policy   string
		from, to string
		want     float64
		why      string
	}{
		{"equal", "n2", "n1", 2.0 / 3, "2 of 3 replicas are on n1"},
		{"localization", "n2", "n2", 1, "nearest is local"},
		{"localization", "n1", "n1", 1, "nearest is local"},
		// Supplies 1/2 each (A's requests are equal). n1 keeps 1/2 locally (room 2/3 → 1/6 left);
		// n2 keeps 1/3 locally, 1/6 left over goes to n1's remaining room: 1/6 ÷ 1/2 = 1/3.
		{"opttraffic", "n2", "n1", 1.0 / 3, "local first, remainder to the room left"},
		{"opttraffic", "n1", "n1", 1, "n1's own traffic fits locally"},
		// LATA: demands 1/3 per B replica; the same min-cost answer as OptTraffic here.
		{"lata", "n2", "n1", 1.0 / 3, "min Σ traffic × delay with equal replica demand"},
	}
	for _, tc := range cases {
		a, err := mustPolicy(t, tc.policy, DefaultOptions()).Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := a.Route("B")
		if got := r.Fraction(tc.from, tc.to); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %s → %s = %v, want %v (%s)", tc.policy, tc.from, tc.to, got, tc.want, tc.why)
		}
	}
}

// LATA's per-replica solution and NTAM on node groups (without the filter,
// demands by replica count) solve the same problem: their costs agree.
func TestLATAAgreesWithGroupedMinCost(t *testing.T) {
	for seed := range uint64(10) {
		s := chainCluster(seed, 5, 3, 7)
		lata, err := mustPolicy(t, "lata", DefaultOptions()).Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := traffic.NewIndex(s)
		for _, r := range lata.Routes {
			groups := x.Groups(r.Component)
			shares := replicaCountShares(groups)
			var demands []traffic.Amount
			for i, g := range groups {
				demands = append(demands, traffic.Amount{Node: g.Node, Value: shares[i]})
			}
			cfg := ntam.DefaultConfig()
			cfg.DisableFilter = true
			sol, err := ntam.Solve(cfg, ntam.Problem{Supplies: x.Supplies(r.Component), Demands: demands, Delays: x.DelayMatrix(nil, x.Supplies(r.Component), demands)})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sol.Cost-r.Cost) > 1e-9 {
				t.Errorf("seed %d %s: LATA cost %v, grouped min-cost %v", seed, r.Component, r.Cost, sol.Cost)
			}
		}
	}
}

func TestARTTDropsUnhealthyAndScalesDegraded(t *testing.T) {
	p := mustPolicy(t, "artt", DefaultOptions())
	s := pair(1, 0.5)
	if _, err := p.Allocate(s); err != nil {
		t.Fatal(err)
	}
	// b-n2 starts failing: half its requests error for more than 5 s.
	for i, sec := range []int64{101, 103, 107} {
		s.At = time.Unix(sec, 0)
		s.Replicas[3].ErrorRate = 0.6
		a, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := a.Route("B")
		share := groupShare(t, a, "B", "n2")
		switch i {
		case 0, 1:
			if r.Groups[1].Health != "Degraded" || !(share < 0.5) || share < 0.1*0.5 {
				t.Errorf("t=%d: n2 %s share %v, want Degraded with a reduced share ≥ 0.05", sec, r.Groups[1].Health, share)
			}
		case 2:
			if r.Groups[1].Health != "Unhealthy" || share != 0 || r.Fraction("n2", "n2") != 0 {
				t.Errorf("t=%d: n2 %s share %v, want Unhealthy and out of the allocation", sec, r.Groups[1].Health, share)
			}
		}
	}
}

func TestARTTReactsToPodDeletionAndNodeFailure(t *testing.T) {
	// The table's reaction: with one group left, ARTT would otherwise leave
	// B to Envoy, where the emptied node simply has no endpoint.
	opts := DefaultOptions()
	opts.LeaveToEnvoy = false
	p := mustPolicy(t, "artt", opts)
	s := pair(1, 0.5)
	if _, err := p.Allocate(s); err != nil {
		t.Fatal(err)
	}
	s.Replicas = s.Replicas[:3] // b-n2 deleted
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := a.Route("B")
	if r.Fraction("n2", "n1") != 1 || len(r.Groups) != 1 {
		t.Errorf("after deleting b-n2: groups %v, n2 → n1 %v; want everything to n1", r.Groups, r.Fraction("n2", "n1"))
	}
	s = pair(1, 0.5)
	s.Nodes[1].Ready = false
	a, err = p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	r, _ = a.Route("B")
	if len(r.Sources) != 1 || r.Sources[0].Node != "n1" || r.Fraction("n1", "n1") != 1 {
		t.Errorf("node n2 NotReady: sources %v; want only n1, sending to n1", r.Sources)
	}
}

func TestAllocateRejectsBadSnapshots(t *testing.T) {
	bad := pair(1, 0.5)
	bad.Replicas[0].CPU = -1
	for _, name := range Names {
		_, err := mustPolicy(t, name, DefaultOptions()).Allocate(bad)
		if err == nil || !strings.Contains(err.Error(), "replicas[0].cpu") {
			t.Errorf("%s: error %v, want one naming replicas[0].cpu", name, err)
		}
	}
	empty, err := mustPolicy(t, "artt", DefaultOptions()).Allocate(traffic.Snapshot{})
	if err != nil || len(empty.Routes) != 0 {
		t.Errorf("empty snapshot: %v, %v; want no routes and no error", empty, err)
	}
}

// An event between cycles repeats the last measurements (same MeasuredAt):
// the policy must re-route around the change without learning from the same
// data twice, so repeating an unchanged snapshot changes nothing.
func TestRepeatedMeasurementsAreNotLearntTwice(t *testing.T) {
	for _, name := range []string{"artt", "heart"} {
		p := mustPolicy(t, name, DefaultOptions())
		s := pair(2, 0.5)
		s.MeasuredAt = time.Unix(100, 0)
		first, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		s.At = time.Unix(110, 0)
		again, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(routing(first), routing(again)) {
			t.Errorf("%s: the same measurements gave different routes:\n%+v\n%+v", name, first.Routes, again.Routes)
		}
		s.MeasuredAt = time.Unix(115, 0)
		next, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		if name == "artt" && reflect.DeepEqual(routing(first), routing(next)) {
			t.Errorf("%s: new measurements of an imbalance did not move the shares", name)
		}
	}
}

// routing keeps what the data plane sees: the sources' fractions and the
// group shares.
func routing(a traffic.Allocation) [][]any {
	var out [][]any
	for _, r := range a.Routes {
		row := []any{r.Component, r.Sources}
		for _, g := range r.Groups {
			row = append(row, g.Node, g.Share)
		}
		out = append(out, row)
	}
	return out
}

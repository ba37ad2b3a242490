package allocate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
)

// After a pod leaves one component, a reallocation with the same
// measurements solves again only that component and the one it calls
// (whose supplies moved); every other component's route is recalled, and
// is exactly what a fresh allocator computes for the new snapshot.
func TestMemoResolvesOnlyWhatAnEventTouched(t *testing.T) {
	s := chainClusterSpan(3, 40, 8, 20, 10)
	s.MeasuredAt = s.At // the event reuses the cycle's measurements
	for _, name := range []string{"heart", "artt"} {
		t.Run(name, func(t *testing.T) {
			p := mustPolicy(t, name, DefaultOptions())
			if _, err := p.Allocate(s); err != nil {
				t.Fatal(err)
			}
			memo := memoOf(p)
			solvedFirst := memo.solved

			// c3 loses a pod: c3's groups change, and c4's supplies (c3's nodes).
			event := s
			event.Replicas = slices.DeleteFunc(slices.Clone(s.Replicas), func(r traffic.Replica) bool { return r.Name == "c3-0" })
			got, err := p.Allocate(event)
			if err != nil {
				t.Fatal(err)
			}
			if solved := memo.solved - solvedFirst; solved != 2 {
				t.Errorf("the event solved %d components again, want 2 (c3 and c4)", solved)
			}
			if memo.reused != 5 {
				t.Errorf("%d components recalled, want the 5 untouched", memo.reused)
			}
			fresh := mustPolicy(t, name, DefaultOptions())
			if _, err := fresh.Allocate(s); err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Allocate(event)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Routes, want.Routes) {
				t.Errorf("routes recalled from memory differ from a fresh allocation")
			}
		})
	}
}

func memoOf(p traffic.Policy) *solutionMemo {
	switch p := p.(type) {
	case *HEART:
		return p.memo
	case *ARTT:
		return p.memo
	}
	return nil
}

// A policy kept from cycle to cycle starts each changed problem from the
// component's last routing. With delays drawn from a continuum every
// optimum is unique, so the routes must be those of the same policy
// solving every problem from scratch, cycle after cycle.
func TestRoutesFromThePreviousRoutingMatchColdStarts(t *testing.T) {
	walk := driftingSnapshots(chainClusterSpan(5, 30, 6, 40, 12), 6, 0.05)
	for _, name := range []string{"heart", "artt"} {
		t.Run(name, func(t *testing.T) {
			warm, cold := mustPolicy(t, name, DefaultOptions()), mustPolicy(t, name, DefaultOptions())
			memoOf(cold).cold = true
			for cycle, s := range walk {
				s.At = s.At.Add(time.Duration(cycle) * 15 * time.Second)
				s.MeasuredAt = s.At
				got, err := warm.Allocate(s)
				if err != nil {
					t.Fatal(err)
				}
				want, err := cold.Allocate(s)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameRoutes(got.Routes, want.Routes, 1e-9); err != nil {
					t.Fatalf("cycle %d: %v", cycle, err)
				}
			}
			if memoOf(warm).solved <= len(walk) {
				t.Errorf("%d problems solved over %d cycles: the walk no longer changes the problems", memoOf(warm).solved, len(walk))
			}
		})
	}
}

// sameRoutes compares two allocations' fractions, which may differ by
// rounding only.
func sameRoutes(a, b []traffic.Route, tolerance float64) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d routes against %d", len(a), len(b))
	}
	for i := range a {
		if len(a[i].Sources) != len(b[i].Sources) {
			return fmt.Errorf("%s: %d sources against %d", a[i].Component, len(a[i].Sources), len(b[i].Sources))
		}
		for k, src := range a[i].Sources {
			other := b[i].Sources[k]
			if src.Node != other.Node || len(src.To) != len(other.To) {
				return fmt.Errorf("%s from %s: %v against %s %v", a[i].Component, src.Node, src.To, other.Node, other.To)
			}
			for j, to := range src.To {
				if to.Node != other.To[j].Node || math.Abs(to.Value-other.To[j].Value) > tolerance {
					return fmt.Errorf("%s from %s: %v against %v", a[i].Component, src.Node, src.To, other.To)
				}
			}
		}
	}
	return nil
}

// TestMemoSeesDelaysChangeAlone: when only the measured delays change, as
// when probes report while the traffic holds steady, every component is
// solved again and routed as a policy with nothing in memory routes it,
// and when they repeat, every component is recalled, cycle after cycle,
// while the memo writes each cycle's delay matrices into arrays it handed
// out before.
func TestMemoSeesDelaysChangeAlone(t *testing.T) {
	s := chainClusterSpan(9, 30, 6, 40, 12)
	s.MeasuredAt = s.At
	rng := rand.New(rand.NewPCG(2, 2))
	var delaySets [][]graph.Delay
	for range 3 {
		ds := slices.Clone(s.Delays)
		for i := range ds {
			ds[i].Ms *= 0.8 + 0.4*rng.Float64()
		}
		delaySets = append(delaySets, ds)
	}
	p, ref := mustPolicy(t, "heart", DefaultOptions()), mustPolicy(t, "heart", DefaultOptions())
	memo := memoOf(p)
	last := -1
	for cycle, which := range []int{0, 1, 1, 2, 1, 0, 0, 1, 2, 2, 0} {
		snap := s
		snap.Delays = delaySets[which]
		solvedBefore, reusedBefore := memo.solved, memo.reused
		got, err := p.Allocate(snap)
		if err != nil {
			t.Fatal(err)
		}
		memoOf(ref).last = make(map[string]memoEntry)
		want, err := ref.Allocate(snap)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameRoutes(got.Routes, want.Routes, 1e-9); err != nil {
			t.Fatalf("cycle %d: %v", cycle, err)
		}
		solved, reused := memo.solved-solvedBefore, memo.reused-reusedBefore
		if which != last && (solved != len(got.Routes) || reused != 0) {
			t.Fatalf("cycle %d: delays changed, yet %d of %d components solved and %d recalled", cycle, solved, len(got.Routes), reused)
		}
		if which == last && (reused != len(got.Routes) || solved != 0) {
			t.Fatalf("cycle %d: delays repeated, yet %d of %d components recalled and %d solved", cycle, reused, len(got.Routes), solved)
		}
		last = which
	}
}

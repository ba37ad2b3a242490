package allocate

import (
	"testing"
	"time"
)

// FuzzResume hands a new ARTT a state for B made of arbitrary bytes (the
// seeds: a leader's real state after a degradation, and edits of it), as
// a rule's annotation can hold anything. Resume may refuse it, but the
// allocation that follows must succeed, route B and be valid,
// at once and a cycle later: no state, however bad, stops the routing.
func FuzzResume(f *testing.F) {
	at := time.Unix(1_700_000_000, 0)
	costs := map[string]float64{"n0": 0.004, "n1": 0.004, "n2": 0.004}
	leader := NewARTT(DefaultOptions())
	shares := map[string]float64{}
	for i := range 8 {
		if i == 4 {
			costs["n1"] *= 3
		}
		a, err := leader.Allocate(closedLoop(at, shares, costs))
		if err != nil {
			f.Fatal(err)
		}
		r, _ := a.Route("B")
		shares = map[string]float64{}
		for _, g := range r.Groups {
			shares[g.Node] = g.Share
		}
		at = at.Add(30 * time.Second)
	}
	state, ok := leader.State("B")
	if !ok {
		f.Fatal("no state for B")
	}
	f.Add(state)
	f.Add([]byte(`{"v":1,"groups":[{"node":"n1","share":0.1,"health":{"state":"Degraded","entered":"9999-01-01T00:00:00Z","last":"9999-01-01T00:00:00Z"}}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		resumed := NewARTT(DefaultOptions())
		resumed.Resume(at, map[string][]byte{"B": raw})
		next := at
		for cycle := range 2 {
			s := closedLoop(next, shares, costs)
			a, err := resumed.Allocate(s)
			if err != nil {
				t.Fatalf("cycle %d after resuming %q: %v", cycle, raw, err)
			}
			if err := checkAllocation(s, a); err != nil {
				t.Fatalf("cycle %d after resuming %q: %v", cycle, raw, err)
			}
			if _, ok := a.Route("B"); !ok {
				t.Fatalf("cycle %d after resuming %q: no route for B", cycle, raw)
			}
			if len(a.Failed) > 0 {
				t.Fatalf("cycle %d after resuming %q: failed %v", cycle, raw, a.Failed)
			}
			next = next.Add(30 * time.Second)
		}
	})
}

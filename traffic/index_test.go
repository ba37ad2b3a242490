package traffic

import (
	"math"
	"testing"

	"github.com/artt-dev/artt/graph"
)

// A caller's share of a component's calls is weighed as Supplies weighs
// them: by measured rate, every caller alike when a rate is unknown; and
// the callees are listed once each, sorted.
func TestCallerShareWeighsCallsAsSuppliesDoes(t *testing.T) {
	index := func(rateA, rateB float64) *Index {
		s := Snapshot{
			Components: []Component{{Name: "A"}, {Name: "B"}, {Name: "C"}, {Name: "D"}},
			Calls: []graph.Call{
				{From: "A", To: "C", Rate: rateA}, {From: "B", To: "C", Rate: rateB},
				{From: "A", To: "D", Rate: 1}, {From: "A", To: "C", Rate: 0},
			},
		}
		x, err := NewIndex(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := index(30, 10)
	if got := x.CallerShare("A", "C"); math.Abs(got-0.75) > 1e-12 {
		t.Errorf("A's share of C at 30 and 10 per second: %v, want 0.75", got)
	}
	if got := index(30, math.NaN()).CallerShare("A", "C"); math.Abs(got-2.0/3) > 1e-12 {
		t.Errorf("A's share of C with B's rate unknown: %v, want 2/3 (two of three calls)", got)
	}
	if got := x.CallerShare("B", "D"); got != 0 {
		t.Errorf("B's share of D, which it does not call: %v, want 0", got)
	}
	if got := x.Callees("A"); len(got) != 2 || got[0] != "C" || got[1] != "D" {
		t.Errorf("A's callees %v, want [C D]", got)
	}
	if !x.CallsOut("A") || x.CallsOut("C") {
		t.Errorf("CallsOut A %v, C %v; want true, false", x.CallsOut("A"), x.CallsOut("C"))
	}
}

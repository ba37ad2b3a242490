package workload

import "testing"

// TestACallDrawsFromItsPath: a call's draws depend on its key and purpose
// alone, and calls with other keys, or other purposes, draw otherwise.
func TestACallDrawsFromItsPath(t *testing.T) {
	d := NewCallDraws(9)
	first := d.Of(ChildKey(RootKey(4), 1), DrawHopOut).Float64()
	d.Of(RootKey(5), DrawWork).Float64() // another call's draw in between
	if again := d.Of(ChildKey(RootKey(4), 1), DrawHopOut).Float64(); again != first {
		t.Errorf("one call's hop drew %v, then %v", first, again)
	}
	others := map[string]float64{
		"its sibling":          d.Of(ChildKey(RootKey(4), 0), DrawHopOut).Float64(),
		"its caller":           d.Of(RootKey(4), DrawHopOut).Float64(),
		"the next arrival's":   d.Of(ChildKey(RootKey(5), 1), DrawHopOut).Float64(),
		"its own return hop":   d.Of(ChildKey(RootKey(4), 1), DrawHopBack).Float64(),
		"another seed's draws": NewCallDraws(10).Of(ChildKey(RootKey(4), 1), DrawHopOut).Float64(),
	}
	for what, v := range others {
		if v == first {
			t.Errorf("%s draw equals the call's own (%v)", what, v)
		}
	}
}

package allocate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPeerMediansMatchesLeavingEachOut checks peerMedians against the
// definition: for each value, sort the finite others and take the middle.
// The inputs have NaNs, ties and groups of one and two.
func TestPeerMediansMatchesLeavingEachOut(t *testing.T) {
	leaveOut := func(xs []float64, skip int) float64 {
		var v []float64
		for i, x := range xs {
			if i != skip && !math.IsNaN(x) {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			return math.NaN()
		}
		slices.Sort(v)
		if n := len(v); n%2 == 1 {
			return v[n/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	rng := rand.New(rand.NewPCG(3, 7))
	for trial := range 2000 {
		xs := make([]float64, rng.IntN(9))
		for i := range xs {
			switch rng.IntN(5) {
			case 0:
				xs[i] = math.NaN()
			case 1:
				xs[i] = float64(rng.IntN(3)) // ties
			default:
				xs[i] = rng.Float64() * 100
			}
		}
		got := peerMedians(xs)
		if len(got) != len(xs) {
			t.Fatalf("%v: %d medians", xs, len(got))
		}
		for i := range xs {
			want := leaveOut(xs, i)
			if got[i] != want && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
				t.Fatalf("trial %d: peers of %v[%d] = %v, want %v", trial, xs, i, got[i], want)
			}
		}
	}
}

package traffic

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNormalizeAddsPerNodeAndSorts checks Normalize against its definition
// through a map (normalize): amounts per node added in input order,
// non-positive and infinite ones dropped, sorted by node, summing to 1.
// The inputs repeat nodes, hold zeros, negatives and infinities, and are
// sometimes empty of anything positive.
func TestNormalizeAddsPerNodeAndSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	nodes := []string{"a", "b", "c", "d", "e"}
	for trial := range 3000 {
		as := make([]Amount, rng.IntN(8))
		for i := range as {
			v := rng.Float64()
			switch rng.IntN(6) {
			case 0:
				v = 0
			case 1:
				v = -v
			case 2:
				v = math.Inf(1)
			}
			as[i] = Amount{Node: nodes[rng.IntN(len(nodes))], Value: v}
		}
		m := make(map[string]float64)
		for _, a := range as {
			if a.Value > 0 && !math.IsInf(a.Value, 0) {
				m[a.Node] += a.Value
			}
		}
		want := normalize(m)
		input := slices.Clone(as)
		got := Normalize(as)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: Normalize(%v) = %v, want %v", trial, as, got, want)
		}
		if !slices.Equal(as, input) {
			t.Fatalf("trial %d: Normalize changed its input to %v", trial, as)
		}
	}
}

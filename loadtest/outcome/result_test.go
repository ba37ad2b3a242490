package outcome

import (
	"math"
	"testing"
)

// Balance is per component: pods of different components differ by
// design, so only a component's own replicas are compared.
func TestBalanceIsPerComponent(t *testing.T) {
	per, gap, ratio := balance([]string{"a", "b", "c"}, [][]float64{{0.4, 0.5, 0.6}, {0.9}, nil})
	if len(per) != 2 || per[0].Component != "a" || math.Abs(per[0].Gap-0.2) > 1e-12 || math.Abs(per[0].Ratio-1.2) > 1e-12 ||
		per[1].Gap != 0 || per[1].Ratio != 1 {
		t.Errorf("per component %+v, want a: 0.2 and 1.2, b: 0 and 1, c left out", per)
	}
	// Mixed, the pods would span 0.4–0.9: a gap of 0.5 that says nothing.
	if math.Abs(gap-0.2) > 1e-12 || math.Abs(ratio-1.2) > 1e-12 {
		t.Errorf("worst gap %v and ratio %v, want a's 0.2 and 1.2", gap, ratio)
	}
}

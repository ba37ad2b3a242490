package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMedianInPlace(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7, 7, 1, 9}, 7},
	} {
		if got := MedianInPlace(append([]float64{}, c.v...)); got != c.want {
			t.Errorf("median of %v = %v, want %v", c.v, got, c.want)
		}
	}
}

// The selection gives what sorting gives, on lengths odd and even, with
// many ties (demand windows repeat values) and with a NaN.
func TestMedianInPlaceIsTheSortedMedian(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		v := make([]float64, 1+r.IntN(60))
		for i := range v {
			v[i] = float64(r.IntN(1 + trial%20))
		}
		if trial%97 == 0 {
			v[r.IntN(len(v))] = math.NaN()
		}
		sorted := slices.Clone(v)
		slices.Sort(sorted)
		n := len(sorted)
		want := sorted[n/2]
		if n%2 == 0 {
			want = (sorted[n/2-1] + sorted[n/2]) / 2
		}
		if got := MedianInPlace(slices.Clone(v)); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("median of %v = %v, sorting gives %v", v, got, want)
		}
	}
}

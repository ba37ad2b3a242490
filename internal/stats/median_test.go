package stats

import "testing"

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

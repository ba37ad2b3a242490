package stats

import (
	"math"
	"testing"
)

func TestQuantileIsTheNearestRank(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct{ q, want float64 }{{0.5, 5}, {0.9, 9}, {0.95, 10}, {0.99, 10}, {0, 1}, {1, 10}} {
		if got := Quantile(xs, c.q); got != c.want {
			t.Errorf("Quantile(1…10, %v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile of nothing = %v, want NaN", got)
	}
}

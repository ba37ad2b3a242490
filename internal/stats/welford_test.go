package stats

import (
	"math"
	"testing"
)

func TestWelfordMatchesTwoPassValues(t *testing.T) {
	cases := []struct {
		name     string
		xs       []float64
		mean     float64
		variance float64
	}{
		{"empty accumulator", nil, 0, 0},
		{"one value has no variance", []float64{3}, 3, 0},
		{"textbook set: mean 5, sample variance 32/7", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, 32.0 / 7},
		// A large offset breaks the naive Σx² − n·mean² formula; Welford keeps it.
		{"large offset stays accurate", []float64{1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16}, 1e9 + 10, 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var w Welford
			for _, x := range tc.xs {
				w.Add(x)
			}
			if w.Count() != len(tc.xs) {
				t.Errorf("Count = %d, want %d", w.Count(), len(tc.xs))
			}
			if math.Abs(w.Mean()-tc.mean) > 1e-9 {
				t.Errorf("Mean = %v, want %v", w.Mean(), tc.mean)
			}
			if math.Abs(w.Variance()-tc.variance) > 1e-9 {
				t.Errorf("Variance = %v, want %v", w.Variance(), tc.variance)
			}
		})
	}
}

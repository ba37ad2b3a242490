package threshold

import (
	"math"
	"testing"
)

func TestMedianAndMAD(t *testing.T) {
	cases := []struct {
		name      string
		xs        []float64
		median    float64
		deviation float64
	}{
		{"odd length", []float64{9, 1, 2, 6, 1, 4, 2}, 2, 1},
		{"even length averages the middle pair", []float64{1, 2, 3, 10}, 2.5, 1},
		{"constant has no deviation", []float64{5, 5, 5}, 5, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]float64(nil), tc.xs...)
			scratch := make([]float64, len(tc.xs))
			if got := median(tc.xs, scratch); got != tc.median {
				t.Errorf("median = %v, want %v", got, tc.median)
			}
			if got := medianAbsoluteDeviation(tc.xs, scratch); got != tc.deviation {
				t.Errorf("MAD = %v, want %v", got, tc.deviation)
			}
			for i := range orig {
				if orig[i] != tc.xs[i] {
					t.Fatalf("input reordered: %v, was %v", tc.xs, orig)
				}
			}
		})
	}
}

func TestUpperBoundKeepsOutliersOut(t *testing.T) {
	b := upperBound{z: 2, warmUp: 3}
	for _, x := range []float64{10, 12, 8, 11, 9} {
		if !b.observe(x) {
			t.Fatalf("value %v inside the interval was rejected", x)
		}
	}
	before := b.upper()
	// mean 10, sd √2.5 ≈ 1.58: 100 is far outside 10 ± 3.16.
	if b.observe(100) {
		t.Fatal("outlier 100 was admitted")
	}
	if b.upper() != before {
		t.Errorf("upper bound moved from %v to %v on a rejected outlier", before, b.upper())
	}
	if got := b.normalize(100); got != 1 {
		t.Errorf("normalize(outlier) = %v, want clamp to 1", got)
	}
	if got := b.normalize(-3); got != 0 {
		t.Errorf("normalize(negative) = %v, want 0 (lower bound fixed at 0)", got)
	}
	want := 10 / (10 + 2*math.Sqrt(2.5))
	if got := b.normalize(10); math.Abs(got-want) > 1e-12 {
		t.Errorf("normalize(10) = %v, want 10/(μ+zσ) = %v", got, want)
	}
}

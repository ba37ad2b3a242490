package stats

import (
	"math"
	"testing"
)

func TestSlope(t *testing.T) {
	// y = 3x + 1 with symmetric noise: the noise cancels.
	xs := []float64{0, 1, 2, 3, 4}
	ys := []float64{1.5, 3.5, 7, 10.5, 12.5}
	if got := Slope(xs, ys); math.Abs(got-2.9) > 1e-12 {
		t.Errorf("slope %v, want 2.9", got)
	}
	if got := Mean(ys); math.Abs(got-7) > 1e-12 {
		t.Errorf("mean %v, want 7", got)
	}
	if got := Slope([]float64{2, 2}, []float64{1, 5}); !math.IsNaN(got) {
		t.Errorf("slope over one x: %v, want NaN", got)
	}
}

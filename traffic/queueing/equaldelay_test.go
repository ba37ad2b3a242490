package queueing

import (
	"math"
	"testing"
)

func TestEqualDelaySplit(t *testing.T) {
	for _, c := range []struct {
		why        string
		capacities []float64
		rate       float64
		want       []float64
	}{
		{"equal servers share equally", []float64{10, 10, 10}, 15, []float64{5, 5, 5}},
		// θ = (10 + 10 + 4 − 15) ÷ 3 = 3: each keeps 3 spare, all at 1/3 s.
		{"a slow server takes what it can at the same delay", []float64{10, 10, 4}, 15, []float64{7, 7, 1}},
		// Over three θ would be (21 − 10) ÷ 3 = 3.67 > 1: the slow one is left
		// out, and θ = (20 − 10) ÷ 2 = 5.
		{"a server slower than the spare gets nothing", []float64{10, 10, 1}, 10, []float64{5, 5, 0}},
		{"order does not matter", []float64{1, 10, 10}, 10, []float64{0, 5, 5}},
		{"at or past capacity each gets its share of it", []float64{10, 30}, 60, []float64{15, 45}},
		{"no rate", []float64{10, 10}, 0, []float64{0, 0}},
		{"unknown and empty servers get nothing", []float64{math.NaN(), 0, 10, -1}, 4, []float64{0, 0, 4, 0}},
		{"no capacity", []float64{0, math.NaN()}, 5, []float64{0, 0}},
	} {
		got := EqualDelaySplit(c.capacities, c.rate)
		for i := range c.want {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Errorf("%s: EqualDelaySplit(%v, %g) = %v, want %v", c.why, c.capacities, c.rate, got, c.want)
				break
			}
		}
	}
}

// Every server used answers in the same mean time, no server left out
// could answer faster than that, and the split adds up to the rate.
func TestEqualDelaySplitEqualisesDelay(t *testing.T) {
	capacities := []float64{12.5, 12, 11.5, 11, 9, 2.5, 0.8}
	for _, rate := range []float64{1, 10, 30, 50, 58} {
		split := EqualDelaySplit(capacities, rate)
		sum, delay := 0.0, math.NaN()
		for i, l := range split {
			sum += l
			if l == 0 {
				continue
			}
			d := 1 / (capacities[i] - l)
			if math.IsNaN(delay) {
				delay = d
			} else if math.Abs(d-delay) > 1e-9*delay {
				t.Errorf("rate %g: server %d answers in %g s, another in %g s", rate, i, d, delay)
			}
		}
		for i, l := range split {
			if l == 0 && 1/capacities[i] < delay {
				t.Errorf("rate %g: server %d left out would answer in %g s, below the others' %g s", rate, i, 1/capacities[i], delay)
			}
		}
		if math.Abs(sum-rate) > 1e-9*rate {
			t.Errorf("rate %g: the split sums to %g", rate, sum)
		}
	}
}

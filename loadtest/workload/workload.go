// Package workload turns a scenario's workload into an open-loop arrival
// process, as wrk2 drives a service: a piecewise-constant rate λ(t) (a
// constant, steps, or a replayed trace) and Poisson arrivals at that rate.
package workload

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Rate is a piecewise-constant request rate.
type Rate struct {
	// Starts are the segment start times in seconds, increasing, Starts[0] = 0.
	Starts []float64
	// Values are the rates (requests per second) from each start on.
	Values []float64
	// Past is the rate before the start, where the workload has one.
	Past Past
}

// Constant returns a constant rate.
func Constant(r float64) Rate { return Rate{Starts: []float64{0}, Values: []float64{r}} }

// At returns the rate at time t.
func (r Rate) At(t float64) float64 {
	i := sort.SearchFloat64s(r.Starts, t)
	if i == len(r.Starts) || r.Starts[i] > t {
		i--
	}
	if i < 0 {
		return 0
	}
	return r.Values[i]
}

// Max returns the highest rate over [a, b] (the rate at a when b < a).
func (r Rate) Max(a, b float64) float64 {
	peak := r.At(a)
	for i, s := range r.Starts {
		if s > a && s <= b {
			peak = math.Max(peak, r.Values[i])
		}
	}
	return peak
}

// segmentEnd is the time the segment holding t ends (+Inf for the last).
func (r Rate) segmentEnd(t float64) float64 {
	i := sort.SearchFloat64s(r.Starts, t)
	if i < len(r.Starts) && r.Starts[i] == t {
		i++
	}
	if i >= len(r.Starts) {
		return math.Inf(1)
	}
	return r.Starts[i]
}

// Next returns the first arrival after t: exponential gaps at the current
// rate, restarted at each segment boundary (Poisson arrivals are memoryless,
// so this is exact for a piecewise-constant rate). It returns +Inf when no
// arrival ever comes.
func (r Rate) Next(t float64, rng *rand.Rand) float64 {
	for {
		rate := r.At(t)
		end := r.segmentEnd(t)
		if rate > 0 {
			next := t + rng.ExpFloat64()/rate
			if next < end {
				return next
			}
		}
		if math.IsInf(end, 1) {
			return math.Inf(1)
		}
		t = end
	}
}

// Mean returns the mean rate over [0, d].
func (r Rate) Mean(d float64) float64 {
	total := 0.0
	for i, s := range r.Starts {
		if s >= d {
			break
		}
		e := d
		if i+1 < len(r.Starts) && r.Starts[i+1] < d {
			e = r.Starts[i+1]
		}
		total += r.Values[i] * (e - s)
	}
	return total / d
}

package backend

import (
	"math"
	"testing"
)

// The work a request burns makes room for the CPU the pod spends beside
// it, measured per request and smoothed, so the pod's CPU per request is
// the scenario's.
func TestOverheadScalesTheWork(t *testing.T) {
	var o overhead
	if got := o.scale(0.002); got != 1 {
		t.Errorf("before any measurement: scale %v, want 1", got)
	}
	o.observe(0.010, 0.008, 0) // nothing answered: no measurement
	if got := o.scale(0.002); got != 1 {
		t.Errorf("after an interval with no answers: scale %v, want 1", got)
	}
	o.observe(0.010, 0.008, 10) // 0.2 ms per request beside the work
	if got := o.scale(0.002); math.Abs(got-0.9) > 1e-12 {
		t.Errorf("0.2 ms of overhead on 2 ms: scale %v, want 0.9", got)
	}
	o.observe(0.012, 0.008, 10) // 0.4 ms: the estimate moves 0.3 of the way
	if got := o.scale(0.002); math.Abs(got-0.87) > 1e-12 {
		t.Errorf("smoothed to 0.26 ms: scale %v, want 0.87", got)
	}
	o.observe(0.1, 0, 10)
	if got := o.scale(0.002); got != 0 {
		t.Errorf("overhead past the mean: scale %v, want 0 (no work burned)", got)
	}
}

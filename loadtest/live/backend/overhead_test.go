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
	o.observe(0.010, 0.008, 0, 0) // nothing answered: no measurement
	if got := o.scale(0.002); got != 1 {
		t.Errorf("after an interval with no answers: scale %v, want 1", got)
	}
	o.observe(0.010, 0.008, 10, 10) // 0.2 ms per request beside the work
	if got := o.scale(0.002); math.Abs(got-0.9) > 1e-12 {
		t.Errorf("0.2 ms of overhead on 2 ms: scale %v, want 0.9", got)
	}
	o.observe(0.012, 0.008, 10, 10) // 0.4 ms: the estimate moves 0.3 of the way
	if got := o.scale(0.002); math.Abs(got-0.87) > 1e-12 {
		t.Errorf("smoothed to 0.26 ms: scale %v, want 0.87", got)
	}
	o.observe(0.1, 0, 10, 10)
	if got := o.scale(0.002); got != 0 {
		t.Errorf("overhead past the mean: scale %v, want 0 (no work burned)", got)
	}
}

// An overloaded pod answers few of the many requests part-way through
// their work; the work in progress is not overhead, so new requests keep
// their work.
func TestOverheadOfAnOverloadedPod(t *testing.T) {
	var o overhead
	o.observe(0.040, 0.037, 5, 5) // at 5 requests a second: 0.6 ms beside 7.4 ms of work
	// A second at its limit of 0.167 cores, 0.162 of it burned on work,
	// with 37 requests arriving and 2 answered.
	o.observe(0.167, 0.162, 37, 2)
	if got := o.scale(0.0074); got < 0.9 {
		t.Errorf("scale %v after a second at the limit, want at least 0.9: the requests in progress read as overhead", got)
	}
}

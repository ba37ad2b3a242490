package health

import (
	"math"
	"testing"
)

// The capacity a group is trusted with: 1 ÷ its slowdown while Degraded
// for being slow, none once errors are part of the evidence (and not
// after it recovers from them either, until it is Healthy), and its
// weight while it climbs back after a cut.
func TestCapacityFollowsTheEvidence(t *testing.T) {
	at, obs := secondAt, quietObservation
	slow := New(DefaultConfig())
	slow.Observe("g", at(-5), obs(math.NaN(), 0))
	slow.Observe("g", at(0), obs(10, 0))
	if s := slow.Observe("g", at(5), obs(40, 0)); s.State != Degraded || math.Abs(s.Capacity-0.25) > 1e-9 {
		t.Errorf("p95 4× its baseline: %s, capacity %v; want Degraded, 0.25", s.State, s.Capacity)
	}
	erring := New(DefaultConfig())
	erring.Observe("g", at(-5), obs(math.NaN(), 0))
	erring.Observe("g", at(0), obs(10, 0))
	if s := erring.Observe("g", at(5), obs(40, 0.08)); s.State != Degraded || s.Capacity != 0 {
		t.Errorf("slow and 8%% errors: %s, capacity %v; want Degraded, 0", s.State, s.Capacity)
	}
	if s := erring.Observe("g", at(10), obs(10, 0)); s.State != Degraded || s.Capacity != 0 {
		t.Errorf("good again, not yet Healthy: %s, capacity %v; want Degraded, 0", s.State, s.Capacity)
	}
	s := erring.Observe("g", at(45), obs(10, 0))
	if s.State != Healthy || !(s.Weight < 1) || s.Capacity != s.Weight {
		t.Errorf("Healthy after 35 s of good readings: weight %v, capacity %v; want the capacity to climb with the weight from under 1", s.Weight, s.Capacity)
	}
}

package health

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// psP95 is the p95 response time of a processor-sharing server at
// utilisation rho, with Poisson arrivals and requests of equal work 1.
func psP95(rho float64, n int, seed uint64) float64 {
	rnd := rand.New(rand.NewPCG(seed, 1))
	var now float64
	left := map[int]float64{} // work left per request in service
	start := map[int]float64{}
	var took []float64
	next, id := rnd.ExpFloat64()/rho, 0
	for len(took) < n {
		first, done := -1, math.Inf(1)
		for j, w := range left {
			if t := now + w*float64(len(left)); t < done || (t == done && j < first) {
				first, done = j, t
			}
		}
		until := math.Min(next, done)
		for j := range left {
			left[j] -= (until - now) / float64(len(left))
		}
		now = until
		if next < done {
			left[id], start[id] = 1, now
			id++
			next = now + rnd.ExpFloat64()/rho
			continue
		}
		took = append(took, now-start[first])
		delete(left, first)
	}
	slices.Sort(took)
	return took[n*95/100]
}

// Below the busy bar, load alone must not make a group read Degraded once
// its latency is load-free; taken raw, it does well before the bar. The
// work per request is equal, the case where the tail grows fastest.
func TestLoadFreeP95StaysUnderTheDegradedFactorBelowTheBusyBar(t *testing.T) {
	cfg := DefaultConfig()
	const idle = 0.05
	base := LoadFree(psP95(idle, 20000, 1), idle)
	rawAtBar := psP95(cfg.BusyUtilization, 20000, 2) / psP95(idle, 20000, 1)
	if rawAtBar <= cfg.DegradedLatencyFactor {
		t.Fatalf("raw p95 at ρ = %v is %.2f× the idle one; the test needs load alone to pass the factor %v", cfg.BusyUtilization, rawAtBar, cfg.DegradedLatencyFactor)
	}
	for _, rho := range []float64{0.2, 0.3, 0.4, cfg.BusyUtilization - 0.01} {
		if r := LoadFree(psP95(rho, 20000, 3), rho) / base; r > cfg.DegradedLatencyFactor {
			t.Errorf("ρ = %v: load-free p95 %.2f× the idle one, over the Degraded factor %v", rho, r, cfg.DegradedLatencyFactor)
		}
	}
}

func TestLoadFreeLeavesUnknownLoadAlone(t *testing.T) {
	for _, u := range []float64{math.NaN(), 0, -0.2, 1, 1.5} {
		if got := LoadFree(40, u); got != 40 {
			t.Errorf("u = %v: %v, want the latency unchanged (40)", u, got)
		}
	}
	if got := LoadFree(40, 0.25); got != 30 {
		t.Errorf("u = 0.25: %v, want 30", got)
	}
}

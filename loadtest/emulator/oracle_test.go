package emulator

import (
	"fmt"
	"math"
	"testing"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// oracleScenario is one autoscaled backend on one speed-1 node: 10 ms of
// CPU per request on a 0.5-core request, so at a 50% target a pod carries
// 0.25 cores, 25 requests per second. Syncs every 15 s, pods start in 20 s,
// the HPA's default scale-up policy (+100% or +4 pods per sync).
func oracleScenario(t *testing.T, autoscaling, lookahead string) *scenario.Scenario {
	t.Helper()
	la := ""
	if lookahead != "" {
		la = ", lookahead: " + lookahead
	}
	sc, err := scenario.Parse(fmt.Appendf(nil, `
name: oracle
duration: 8m
seed: 3
cluster: {nodes: [{name: node1, cores: 64}]}
application:
  components:
    - {name: backend, cpuPerRequest: 10ms, demand: constant, cpuRequest: 0.5, replicas: 2, maxReplicas: 40, autoscale: true}
workload: {type: constant, rate: 50}
control: {podStartup: 20s}
runs: [{routing: least-request, autoscaling: %s, cpuTarget: 50%s}]
`, autoscaling, la))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func readyAt(t *testing.T, r *outcome.Result, at float64) int {
	t.Helper()
	for _, p := range r.Series {
		if p.T == at {
			return p.Replicas["backend"]
		}
	}
	t.Fatalf("no sample at %.0fs", at)
	return 0
}

// tenStep is 50 requests per second, then 500 from 300 s: 20 pods' worth.
var tenStep = workload.Rate{Starts: []float64{0, 300}, Values: []float64{50, 500}}

// wantReady checks the backend's ready pods at each sample time of want.
func wantReady(t *testing.T, r *outcome.Result, want map[float64]int) {
	t.Helper()
	for at, n := range want {
		if got := readyAt(t, r, at); got != n {
			t.Errorf("at %.0fs: %d ready, want %d", at, got, n)
		}
	}
}

// A step from 50 to 500 requests per second at 300 s needs 20 pods. The
// scale-up policy climbs 2 → 5 → 10 → 20 at best (each sync at most
// doubles, or adds 4), and the last climb must come by the sync at 270 s
// for its pods to be ready by 290 s. Worked back: 10 by 255 s, 5 by 240 s,
// and nothing before: 2 pods until 225 s.
func TestOracleHasPodsReadyAtAKnownStep(t *testing.T) {
	sc := oracleScenario(t, "oracle", "")
	r := runWith(t, sc, tenStep, samplesOnTheGrid(sc))
	wantReady(t, r, map[float64]int{240: 2, 255: 2, 270: 5, 285: 10, 300: 20})
}

// With no lookahead the oracle sees the step at the sync it happens (300
// s) and climbs from there, through the same policy: 6 at 300 s, 12 at 315
// s, 20 at 330 s, each ready 20 s later.
func TestOracleWithoutLookaheadSeesTheStepWhenItComes(t *testing.T) {
	sc := oracleScenario(t, "oracle", "0s")
	r := runWith(t, sc, tenStep, samplesOnTheGrid(sc))
	wantReady(t, r, map[float64]int{300: 2, 315: 2, 330: 6, 345: 12, 360: 20})
}

// With a lookahead of −15 s the oracle sees the rate one scrape late, as a
// scaler reading 15 s scrapes does: the step at 300 s shows at the 315 s
// sync, and the climb of the test above comes one sync later.
func TestOracleOneScrapeLateSeesTheStepASyncLater(t *testing.T) {
	sc := oracleScenario(t, "oracle", "-15s")
	r := runWith(t, sc, tenStep, samplesOnTheGrid(sc))
	wantReady(t, r, map[float64]int{315: 2, 330: 2, 345: 6, 360: 12, 375: 20})
}

// On a ramp of 25 more requests per second every 20 s, the ready pods
// cover the demand at every sample: capacity follows it with no lag, with
// and without the HPA between; behind the HPA within its tolerance (no
// change while the count asked for is within 10% of the current).
func TestOracleCapacityFollowsARampWithoutLag(t *testing.T) {
	ramp := workload.Rate{Starts: []float64{0}, Values: []float64{50}}
	for i := 1; i <= 16; i++ {
		ramp.Starts = append(ramp.Starts, 60+20*float64(i))
		ramp.Values = append(ramp.Values, 50+25*float64(i))
	}
	for _, c := range []struct {
		autoscaling string
		tolerance   float64
	}{{"oracle", hpaTolerance}, {"oracle-free", 0}} {
		r := runAtRate(t, oracleScenario(t, c.autoscaling, ""), ramp)
		for _, p := range r.Series {
			// The pods a rate needs at 25 per pod; the rate a sample
			// closes on is the one in force just before it.
			need := math.Ceil(ramp.At(p.T-1e-9) / 25)
			if got := p.Replicas["backend"]; float64(got)*(1+c.tolerance) < need {
				t.Errorf("%s at %.0fs: %d ready for %.0f requests per second, want at least %.0f ÷ %g", c.autoscaling, p.T, got, ramp.At(p.T-1e-9), need, 1+c.tolerance)
			}
		}
	}
}

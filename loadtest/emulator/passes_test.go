package emulator

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/health"
)

// nodeQuota is the shipped node-quota scenario (w2's quota cut to a fifth
// at 240 s), cut to length, under ARTT alone.
func nodeQuota(t *testing.T, length time.Duration) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../scenarios/node-quota.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = scenario.Duration{Duration: length}
	sc.Runs = []scenario.Run{{Name: "artt", Routing: "artt"}}
	return sc
}

// runForCut runs sc with the routed pods' samples and artt-traffic's
// passes at the given phases, and returns when routing was installed and
// when w2 was first cut after the quota (NaN if never).
func runForCut(t *testing.T, sc *scenario.Scenario, sample, passes float64) (installed []float64, cut float64) {
	t.Helper()
	ph := DrawPhases(sc)
	ph.Sample, ph.Passes = sample, passes
	cut = math.NaN()
	opts := Options{Phases: &ph, Allocated: func(at float64, a traffic.Allocation) {
		installed = append(installed, at)
		for _, r := range a.Routes {
			for _, g := range r.Groups {
				if g.Node == "w2" && g.Health != string(health.Healthy) && math.IsNaN(cut) && at >= 240 {
					cut = at
				}
			}
		}
	}}
	e, err := New(sc, sc.Runs[0], workload.Constant(sc.Workload.Rate), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return installed, cut
}

// artt-traffic's passes run at their own phase, not at the samples', and
// a slowdown is read from the first sample that shows it by the first
// pass after that sample. With the samples 2 s and the passes 9 s past
// each 15 s, the sample at 242 s holds 2 s of the quota and the one at
// 257 s a whole interval of it, and the passes that read them run at
// 249 s and 264 s.
func TestPassesRunAtTheirPhaseOnTheLastSample(t *testing.T) {
	installed, cut := runForCut(t, nodeQuota(t, 5*time.Minute), 2, 9)
	for _, at := range installed {
		if at > 0 && math.Abs(math.Remainder(at-9, 15)) > 1e-6 {
			t.Errorf("routing installed at %.3f s, want only at the passes, 9 s past each 15 s (no pod changed)", at)
		}
	}
	if cut != 249 && cut != 264 {
		t.Errorf("w2 cut at %v s, want at 249 s (the pass after the sample with 2 s of the quota) or 264 s (after the first whole interval of it)", cut)
	}
}

// A reallocation on a pod change between passes reads the measurements
// of the last pass, as artt-traffic's does, not a sample taken since: a
// pod of details on w1 fails at 259 s, after the sample at 257 s that
// holds a whole interval of w2's quota and before the pass at 264 s that
// reads it, so w2 is cut at a pass and never at 259 s.
func TestAReallocationReadsTheLastPass(t *testing.T) {
	sc := nodeQuota(t, 5*time.Minute)
	sc.Events = append(sc.Events, scenario.Event{At: scenario.Duration{Duration: 259 * time.Second}, Type: "pod-failure", Component: "details", Node: "w1"})
	installed, cut := runForCut(t, sc, 2, 9)
	reallocated := false
	for _, at := range installed {
		reallocated = reallocated || at == 259
	}
	if !reallocated {
		t.Fatal("no reallocation at 259 s, when the pod failed")
	}
	if cut != 249 && cut != 264 {
		t.Errorf("w2 cut at %v s, want at a pass (249 s or 264 s): the reallocation at 259 s has only the pass at 249 s's measurements", cut)
	}
}

// The routed pods are deployed before the load, so their first sample's
// rate spans the scrape before it, a whole interval at zero, as
// Prometheus' irate reads it; a rate over the part of an interval the
// load ran, counted by the health tracker as a whole interval's
// requests, would fill its first pool from a second of traffic.
func TestTheFirstSampleSpansAWholeInterval(t *testing.T) {
	sc := nodeQuota(t, 30*time.Second)
	ph := DrawPhases(sc)
	ph.Sample = 2
	e, err := New(sc, sc.Runs[0], workload.Constant(sc.Workload.Rate), Options{Phases: &ph})
	if err != nil {
		t.Fatal(err)
	}
	var first *podSample
	e.beforeArrival = func() {
		if first == nil && e.res.sampledAt == 2 {
			m := e.res.lastSample[e.comps[0].pods[0].id]
			first = &m
		}
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if first == nil || first.answered == 0 {
		t.Fatalf("no first sample at 2 s with requests answered: %+v", first)
	}
	if want := float64(first.answered) / 15; math.Abs(first.rps-want) > 1e-9 {
		t.Errorf("first sample's rate %.3f/s for %d answered, want %.3f/s: over the 15 s interval, not the 2 s the load ran", first.rps, first.answered, want)
	}
}

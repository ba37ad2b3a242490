package emulator

import (
	"math"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// onTheGrid are options that put every scrape just before a point of the
// lab's sample grid and KEDA's polls on that grid, the initial pods idle
// one scrape interval before the load: each poll reads whole intervals
// ending at its own instant, the timing some tests reason in.
func onTheGrid(sc *scenario.Scenario) Options {
	opts := samplesOnTheGrid(sc)
	ph := opts.Phases
	dt := sc.Control.SampleInterval.Seconds()
	ph.Wall, ph.FirstPoll = 0, sc.Control.PollingInterval.Seconds()
	for _, offsets := range ph.Slots {
		for i := range offsets {
			offsets[i] = dt - 1e-6
		}
	}
	opts.PodsIdle = dt
	return opts
}

// samplesOnTheGrid are the seed's phases with the routed pods' samples and
// artt-traffic's passes at every whole sample interval from the load's
// start, so a result's series has a point at each.
func samplesOnTheGrid(sc *scenario.Scenario) Options {
	ph := DrawPhases(sc)
	ph.Sample, ph.Passes = 0, 0
	return Options{Phases: &ph}
}

// scrapeScenario is one backend pod taking 100 requests per second,
// autoscaled by ARTT-HPA (which stays at one pod: 10% of its request).
func scrapeScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse([]byte(`
name: scrapes
duration: 40s
seed: 5
cluster: {nodes: [{name: node1, cores: 8}]}
application:
  components:
    - {name: backend, cpuPerRequest: 1ms, demand: constant, cpuRequest: 1, replicas: 1, maxReplicas: 1, autoscale: true}
workload: {type: constant, rate: 100}
control: {sampleInterval: 5s}
runs: [{routing: least-request, autoscaling: artt}]
`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A poll reads the pod's own scrapes as Prometheus holds them: the pod's
// address is scraped 2 s past each 5 s of the wall clock, the load starts
// on that clock's grid, and the pod ran idle 30 s before it. So the point
// at 5 s is irate over the scrapes at −3 s and 2 s, with load in 2 s of
// the 5 (about 40 a second, where the steady rate is 100); the point at
// 0 s reads two idle scrapes (0, not missing); the completed requests'
// series begins at the first scrape after a completion, so it has no rate
// at 5 s; a poll at 9.9 s ends its range at 5 s. Without the idle time,
// the pod's series begins with the load, and the point at 0 s is missing.
func TestAPollReadsThePodsOwnScrapes(t *testing.T) {
	sc := scrapeScenario(t)
	ph := ScrapePhases{Wall: 0, FirstPoll: 15, Slots: map[string][]float64{"backend": {2}}}
	at := func(idle, now float64) (arrivals, demand []float64) {
		t.Helper()
		e, err := New(sc, sc.Runs[0], workload.Constant(100), Options{Phases: &ph, PodsIdle: idle})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Run(); err != nil {
			t.Fatal(err)
		}
		c := e.byName["backend"]
		spec := e.autoscaler.(*kedaHPA).triggers[c].spec
		e.now = now
		m := e.scrapes.measurements(c, spec)
		return m.Arrivals, m.Demand
	}
	arrivals, demand := at(30, 9.9)
	n := len(arrivals)
	if got := arrivals[n-1]; got < 30 || got > 50 {
		t.Errorf("the poll at 9.9 s ends at 5 s: arrivals %.1f/s there, want about 40 (2 s of load in 5)", got)
	}
	if got := arrivals[n-2]; got != 0 {
		t.Errorf("arrivals at 0 s: %v, want 0 from two idle scrapes", got)
	}
	if !math.IsNaN(demand[n-1]) {
		t.Errorf("completions at 5 s: %v/s, want missing: the series began at 2 s", demand[n-1])
	}
	arrivals, demand = at(30, 10)
	if got := arrivals[len(arrivals)-1]; got < 80 || got > 120 {
		t.Errorf("arrivals at 10 s: %.1f/s, want about 100 (the scrapes at 2 s and 7 s)", got)
	}
	if got := demand[len(demand)-1]; got < 80 || got > 120 {
		t.Errorf("completions at 10 s: %.1f/s, want about 100", got)
	}
	arrivals, _ = at(0, 9.9)
	if got := arrivals[len(arrivals)-2]; !math.IsNaN(got) {
		t.Errorf("arrivals at 0 s with no idle time: %v, want missing", got)
	}
	if got := arrivals[len(arrivals)-1]; !math.IsNaN(got) {
		t.Errorf("arrivals at 5 s with no idle time: %v, want missing: one scrape (2 s) since the pod began", got)
	}
}

// Phases no run has are refused, naming the field and its value.
func TestPhasesNoRunHasAreRefused(t *testing.T) {
	sc := scrapeScenario(t)
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Phases.Wall = 3600 }, "wall is 3600"},
		{func(o *Options) { o.Phases.FirstPoll = 0 }, "firstPoll is 0"},
		{func(o *Options) { o.Phases.FirstPoll = 15.5 }, "firstPoll is 15.5"},
		{func(o *Options) { o.Phases.Slots["backend"][0] = 5 }, "slots[backend][0] is 5"},
		{func(o *Options) { o.Phases.Sample = 15 }, "sample is 15"},
		{func(o *Options) { o.Phases.Passes = -1 }, "passes is -1"},
		{func(o *Options) { o.PodsIdle = math.NaN() }, "podsIdle is NaN"},
	} {
		ph := DrawPhases(sc)
		opts := Options{Phases: &ph}
		tc.change(&opts)
		_, err := New(sc, sc.Runs[0], workload.Constant(100), opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error naming %q", err, tc.want)
		}
	}
}

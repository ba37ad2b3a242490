package emulator

import (
	"fmt"
	"math/rand/v2"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/traffic"
)

// ScrapePhases place a run on the wall clock as Prometheus and artt-scaler
// see it. The lab draws them from the seed; the live harness passes the
// ones its run had, so the lab's prediction reads the same samples.
type ScrapePhases struct {
	// Wall is the load's start on the wall clock, in seconds past the
	// hour: artt-scaler ends each range at its poll truncated to its step
	// on that clock.
	Wall float64 `json:"wall"`
	// FirstPoll is KEDA's first poll after the load's start, in seconds:
	// in (0, pollingInterval].
	FirstPoll float64 `json:"firstPoll"`
	// Slots are, by component, the scrape offset of each pod address on
	// the wall clock, in seconds past a multiple of the scrape interval:
	// a new pod takes the first free address, a gone pod's address goes
	// to the back, as the harness's pods do.
	Slots map[string][]float64 `json:"slots"`
	// Sample is where the routed pods' scrapes fall after the load's
	// start, in [0, scrape interval): the lab samples them at Sample +
	// k·interval (at k·interval when 0), and the first sample covers only
	// the part of an interval the load ran.
	Sample float64 `json:"sample"`
	// Passes is where artt-traffic's passes fall after the load's start,
	// in [0, scrape interval): its fast path runs every scrape interval
	// and its cycle every cycle from its leader's start, so both at
	// Passes + k·interval. A pass reads the last sample taken before it.
	Passes float64 `json:"passes"`
}

// RunClock is what places one live run on the wall clock for the lab:
// its phases and how long its initial pods idled before the load (the
// file artt-live writes beside each autoscaled run's log, and artt-lab's
// --phases reads).
type RunClock struct {
	Phases   ScrapePhases `json:"phases"`
	PodsIdle float64      `json:"podsIdle"`
}

// scrapeStream selects the draws of the phases from the seed: a stream of
// their own, so the requests and the policies draw as they did without
// them.
const scrapeStream = 0x5c4a9e

// DrawPhases are the phases the lab runs sc at, drawn from its seed: the
// wall clock uniform over the hour, the first poll uniform over a polling
// interval, each address's offset uniform over a scrape interval
// (Prometheus' Target.offset is a hash of the target's labels), and the
// routed pods' scrapes and artt-traffic's passes each uniform over a
// scrape interval (its leader starts when it starts). The autoscaled
// components' initial pods start with the load unless Options.PodsIdle
// says otherwise; the routed pods' first sample spans a whole interval, as
// for pods deployed before the load (sample in control.go).
func DrawPhases(sc *scenario.Scenario) ScrapePhases {
	scrape, poll := sc.Control.SampleInterval.Seconds(), sc.Control.PollingInterval.Seconds()
	rng := rand.New(rand.NewPCG(sc.Seed, scrapeStream))
	ph := ScrapePhases{Wall: rng.Float64() * 3600, FirstPoll: (1 - rng.Float64()) * poll, Slots: map[string][]float64{}}
	for _, c := range sc.Application.Components {
		offsets := make([]float64, max(c.MaxReplicas, c.Replicas))
		for i := range offsets {
			offsets[i] = rng.Float64() * scrape
		}
		ph.Slots[c.Name] = offsets
	}
	// Drawn last, so the autoscaling phases are the ones drawn before.
	ph.Sample, ph.Passes = rng.Float64()*scrape, rng.Float64()*scrape
	return ph
}

// check refuses phases that no run has, naming the field and its value.
func (p ScrapePhases) check(scrape, poll float64) error {
	switch {
	case !(p.Wall >= 0 && p.Wall < 3600):
		return fmt.Errorf("phases: wall is %v s, want within [0, 3600): seconds past the hour", p.Wall)
	case !(p.FirstPoll > 0 && p.FirstPoll <= poll):
		return fmt.Errorf("phases: firstPoll is %v s, want within (0, %g] (the polling interval)", p.FirstPoll, poll)
	case !(p.Sample >= 0 && p.Sample < scrape):
		return fmt.Errorf("phases: sample is %v s, want within [0, %g) (the scrape interval)", p.Sample, scrape)
	case !(p.Passes >= 0 && p.Passes < scrape):
		return fmt.Errorf("phases: passes is %v s, want within [0, %g) (the scrape interval)", p.Passes, scrape)
	}
	for name, offsets := range p.Slots {
		for i, o := range offsets {
			if !(o >= 0 && o < scrape) {
				return fmt.Errorf("phases: slots[%s][%d] is %v s, want within [0, %g) (the scrape interval)", name, i, o, scrape)
			}
		}
	}
	return nil
}

// schedulePasses places the routed pods' first sample and the traffic
// controller's passes at the run's phases: a pass at the load's start
// (the routing in force when it begins), then the fast path every sample
// interval and the cycle every cycle, from the leader's phase.
func (e *Emulator) schedulePasses() {
	dt := e.sc.Control.SampleInterval.Seconds()
	first := e.phases.Sample
	if first == 0 {
		first = dt
	}
	e.q.push(event{at: first, kind: evSample})
	if e.policy == nil {
		return
	}
	e.allocate()
	if _, ok := e.policy.(traffic.Protector); ok {
		e.q.push(event{at: e.phases.Passes + dt, kind: evProtect})
	}
	e.q.push(event{at: e.phases.Passes + e.sc.Control.TrafficCycle.Seconds(), kind: evTraffic})
}

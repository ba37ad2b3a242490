package live

import (
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/emulator"
)

// A run's phases are read from its record: the load's start past the
// hour, artt-scaler's first answer after it, the shortest time an initial
// pod idled before it, and each used address's scrape offset from the first sample
// Prometheus stamped; an address no pod used keeps the lab's draw.
func TestPhasesOfARunFromItsRecord(t *testing.T) {
	p, err := NewPlan("live-step", DefaultMaxCores)
	if err != nil {
		t.Fatal(err)
	}
	slots := p.Scaled[0].Slots
	started := time.Date(2026, 12, 6, 10, 20, 31, 400e6, time.UTC) // 1,231.4 s past the hour
	pod := func(name string, slot int, created time.Time) RunPod {
		return RunPod{PodSpec: PodSpec{Name: name, Component: "backend", Index: slot}, Created: created}
	}
	m := &Measured{Started: started,
		Pods: []RunPod{pod("a", slots[0], started.Add(-40*time.Second)), pod("b", slots[1], started.Add(-35*time.Second)),
			pod("c", slots[2], started.Add(95*time.Second))},
		Pipeline: &Pipeline{
			Evaluations: []Evaluation{{At: started.Add(-700 * time.Millisecond)}, {At: started.Add(14300 * time.Millisecond)}},
			Arrivals: map[string][]Sample{
				"a": {{At: started.Add(-38600 * time.Millisecond)}, {At: started.Add(-33600 * time.Millisecond)}}, // 2.8 s past 5 s
				"c": {{At: started.Add(96100 * time.Millisecond)}},                                                // 2.5 s past
			},
		}}
	ph := Phases(p, m)
	drawn := emulator.DrawPhases(p.Scenario)
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-6 }
	if !near(ph.Wall, 1231.4) || !near(ph.FirstPoll, 14.3) || !near(PodsIdle(p, m), 35) {
		t.Errorf("wall %v, first poll %v, idle %v; want 1231.4, 14.3 and 35", ph.Wall, ph.FirstPoll, PodsIdle(p, m))
	}
	got := ph.Slots["backend"]
	if !near(got[0], 2.8) || !near(got[2], 2.5) {
		t.Errorf("offsets of the used addresses %v and %v, want 2.8 and 2.5", got[0], got[2])
	}
	if got[1] != drawn.Slots["backend"][1] {
		t.Errorf("the address of a pod Prometheus never sampled: %v, want the lab's draw %v", got[1], drawn.Slots["backend"][1])
	}
	m.Pipeline.Evaluations = []Evaluation{{At: started.Add(29300 * time.Millisecond)}} // the first after the start missed
	if got := Phases(p, m).FirstPoll; !near(got, 14.3) {
		t.Errorf("first poll with one missed: %v, want KEDA's phase, 14.3", got)
	}
	m.Pipeline = nil
	if Phases(p, m) != nil || PodsIdle(p, m) != 0 {
		t.Error("phases or an idle time of a run KEDA did not scale")
	}
}

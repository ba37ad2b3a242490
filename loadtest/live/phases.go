package live

import (
	"math"
	"time"

	"github.com/artt-dev/artt/loadtest/emulator"
)

// Phases are where an autoscaled run fell on the wall clock, for the lab's
// prediction at the same phases (emulator.Options.Phases): the load's
// start, KEDA's first poll after it (artt-scaler's first answer), and
// each scaled pod address's scrape offset, read from the times
// Prometheus stamped its samples with. An address no pod used keeps the
// lab's draw. Nil when KEDA did not scale the run.
func Phases(p *Plan, m *Measured) *emulator.ScrapePhases {
	if m.Pipeline == nil || len(p.Scaled) == 0 {
		return nil
	}
	ph := emulator.DrawPhases(p.Scenario)
	ph.Wall = secondsPast(m.Started, time.Hour)
	poll := p.Scenario.Control.PollingInterval.Duration
	for _, e := range m.Pipeline.Evaluations {
		if e.At.After(m.Started) {
			// A poll missed after the start still keeps KEDA's phase.
			first := e.At.Sub(m.Started) % poll
			if first == 0 {
				first = poll
			}
			ph.FirstPoll = first.Seconds()
			break
		}
	}
	for _, s := range p.Scaled {
		offsets := ph.Slots[s.Component]
		for _, pod := range m.Pods {
			if pod.Component != s.Component {
				continue
			}
			samples := m.Pipeline.Arrivals[pod.Name]
			if i := slotOf(s.Slots, pod.Index); i >= 0 && i < len(offsets) && len(samples) > 0 {
				offsets[i] = secondsPast(samples[0].At, p.Scenario.Control.SampleInterval.Duration)
			}
		}
	}
	return &ph
}

// PodsIdle is how long the scaled components' initial pods ran before the
// load (emulator.Options.PodsIdle): the shortest of their idle times, 0
// when KEDA did not scale the run.
func PodsIdle(p *Plan, m *Measured) float64 {
	idle := math.Inf(1)
	for _, s := range p.Scaled {
		for _, pod := range m.Pods {
			if pod.Component == s.Component && pod.Created.Before(m.Started) {
				idle = min(idle, m.Started.Sub(pod.Created).Seconds())
			}
		}
	}
	if m.Pipeline == nil || math.IsInf(idle, 1) {
		return 0
	}
	return idle
}

// slotOf is the position of a pod's address among its component's.
func slotOf(slots []int, index int) int {
	for i, s := range slots {
		if s == index {
			return i
		}
	}
	return -1
}

// secondsPast is how far t is past a multiple of d on the Unix clock.
func secondsPast(t time.Time, d time.Duration) float64 {
	return time.Duration(t.UnixNano() % int64(d)).Seconds()
}

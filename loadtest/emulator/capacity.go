package emulator

import (
	"math"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// watchCapacity lists, for an autoscaled run over a steps workload, every
// step up and autoscaled component, and schedules a look at each step.
func (e *Emulator) watchCapacity() {
	if (e.autoscaler == nil && !e.run.Floor) || e.sc.Workload.Type != "steps" {
		return
	}
	visits := e.callsPerRequest()
	invSpeed := e.meanSlowness()
	for i := 1; i < len(e.rate.Starts); i++ {
		if e.rate.Values[i] <= e.rate.Values[i-1] {
			continue
		}
		for _, c := range e.comps {
			if !c.spec.Autoscale {
				continue
			}
			cpu := e.rate.Values[i] * visits[c] * c.spec.CPUPerRequest.Seconds() * invSpeed
			needed := int(math.Ceil(cpu / c.spec.CPURequest))
			e.res.res.Capacity = append(e.res.res.Capacity, outcome.StepCapacity{
				At: e.rate.Starts[i], Rate: e.rate.Values[i], Component: c.spec.Name, Needed: needed, Seconds: math.NaN(),
			})
			e.res.watchStep(c, (e.rate.Values[i-1]+e.rate.Values[i])/2*visits[c])
		}
		e.q.push(event{at: e.rate.Starts[i], kind: evCapacity})
	}
}

// meanSlowness is the mean of 1 ÷ speed over every node: a request's CPU
// on a node of mean speed against a speed-1 node's.
func (e *Emulator) meanSlowness() float64 {
	var sum float64
	for _, n := range e.nodes {
		sum += 1 / n.speed
	}
	return sum / float64(len(e.nodes))
}

// checkCapacity records every step whose component now has the ready pods
// it needs.
func (e *Emulator) checkCapacity() {
	for i := range e.res.res.Capacity {
		s := &e.res.res.Capacity[i]
		if s.At <= e.now && math.IsNaN(s.Seconds) && len(e.byName[s.Component].ready) >= s.Needed {
			s.Seconds = e.now - s.At
		}
	}
}

// callsPerRequest is how many times one external request calls each
// component (the entry once, each callee once per call of its caller).
func (e *Emulator) callsPerRequest() map[*component]float64 {
	visits := make(map[*component]float64, len(e.comps))
	var walk func(c *component, times float64, depth int)
	walk = func(c *component, times float64, depth int) {
		visits[c] += times
		if depth > len(e.comps) { // a cycle: validation refuses them, stop anyway
			return
		}
		for _, callee := range c.calls {
			walk(callee, times, depth+1)
		}
	}
	walk(e.entry, 1, 0)
	return visits
}

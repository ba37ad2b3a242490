package emulator

import (
	"fmt"
	"math"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// stepWatch follows one step up of one autoscaled component through the
// autoscaling pipeline as the lab models it: KEDA's poll, artt-scaler's
// answer and the HPA's decision are one tick; a pod is running when
// created and in every endpoint list the moment it is Ready.
type stepWatch struct {
	comp *component
	// timeline indexes the result's Timeline.
	timeline int
	// answerBefore is the autoscaler's last answer before the step (NaN
	// came marks the step as come.
	came bool
}

// watchStep starts following a step up of c at the result's latest
// capacity entry; midpoint is c's arrivals per second halfway through it.
func (c *collector) watchStep(comp *component, midpoint float64) {
	step := c.res.Capacity[len(c.res.Capacity)-1]
	c.res.Timeline = append(c.res.Timeline, outcome.NewStepTimeline(step, midpoint))
	c.steps = append(c.steps, &stepWatch{comp: comp, timeline: len(c.res.Timeline) - 1})
}

// stepsCame notes each step that has come: the component's pods then.
func (c *collector) stepsCame() {
	for _, w := range c.steps {
		if t := &c.res.Timeline[w.timeline]; !w.came && t.At <= c.e.now {
			w.came, t.Before = true, len(w.comp.pods)
		}
	}
}

// sampledArrivals sees a sample of comp's arrivals per second.
func (c *collector) sampledArrivals(comp *component, rate float64) {
	for _, w := range c.stepsOf(comp) {
		if t := &c.res.Timeline[w.timeline]; rate > t.Midpoint {
			t.Saw(outcome.StageScraped, c.e.now, fmt.Sprintf("%.1f/s", rate))
		}
	}
}

// answered sees the autoscaler's answer for comp and the inputs it read.
func (c *collector) answered(comp *component, in outcome.ScalerInputs) {
	for _, w := range c.stepsOf(comp) {
		if t := &c.res.Timeline[w.timeline]; w.came && in.AskedPods() > t.Before {
			t.Saw(outcome.StageScalerRaised, c.e.now, in.String())
			t.Saw(outcome.StageHPARead, c.e.now, in.String())
		}
	}
}

// resized sees a decision to take comp from one count of pods to another.
func (c *collector) resized(comp *component, from, to int) {
	for _, w := range c.stepsOf(comp) {
		t := &c.res.Timeline[w.timeline]
		if !w.came {
			continue
		}
		if to > t.Before {
			t.Saw(outcome.StageHPAScaled, c.e.now, fmt.Sprintf("%d → %d", from, to))
		}
		if to >= t.Needed {
			t.Saw(outcome.StageHPAEnough, c.e.now, fmt.Sprintf("%d → %d", from, to))
		}
	}
}

// stepsOf are the watched steps of comp.
func (c *collector) stepsOf(comp *component) []*stepWatch {
	var out []*stepWatch
	for _, w := range c.steps {
		if w.comp == comp {
			out = append(out, w)
		}
	}
	return out
}

// finishTimelines adds the first new pod's stages and the capacity.
func (c *collector) finishTimelines() {
	for _, w := range c.steps {
		t := &c.res.Timeline[w.timeline]
		var lives []outcome.PodLife
		for _, p := range c.e.pods {
			if p.comp != w.comp {
				continue
			}
			first := math.NaN()
			if p.arrivals > 0 {
				first = p.firstArrival
			}
			lives = append(lives, outcome.PodLife{Name: p.name, Created: p.born, Running: p.born, Ready: p.readyAt,
				InSlice: p.readyAt, InIstiod: p.readyAt, FirstReq: first})
		}
		t.SawFirstPod(lives)
		t.StepCapacity = c.res.Capacity[w.timeline]
		t.Saw(outcome.StageCapacity, t.At+t.StepCapacity.Seconds, "")
	}
}

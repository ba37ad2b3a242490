package loadtest

import (
	"math"
	"testing"

	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/outcome"
)

// The lab's timeline of a step follows its model of the pipeline: a scrape
// within two sample intervals of the step, artt-scaler's answer and the
// HPA's decision at one of KEDA's polls, the pods created at the decision
// and Ready one pod startup later, in every endpoint list at once, and
// sent requests from then on.
func TestLabTimelineFollowsItsModelOfThePipeline(t *testing.T) {
	l := mustLoad(t, "live-step")
	results, err := Run(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctl := l.Scenario.Control
	for _, r := range results {
		if len(r.Timeline) != 1 {
			t.Fatalf("%s: %d timelines, want the one step's", r.Run, len(r.Timeline))
		}
		s := r.Timeline[0]
		sec := func(st outcome.Stage) float64 { return s.Seconds[st] }
		for _, st := range outcome.Stages() {
			if !s.Seen(st) {
				t.Errorf("%s: stage %q never saw the step", r.Run, st)
			}
		}
		if got := sec(outcome.StageScraped); got > 2*ctl.SampleInterval.Seconds() {
			t.Errorf("%s: scraped %.1f s after the step, want within two sample intervals (a pod's first scrape after it holds part of one)", r.Run, got)
		}
		first, poll := emulator.DrawPhases(l.Scenario).FirstPoll, ctl.PollingInterval.Seconds()
		if k := (s.At + sec(outcome.StageScalerRaised) - first) / poll; math.Abs(k-math.Round(k)) > 1e-9 {
			t.Errorf("%s: artt-scaler raised its answer at %.1f s, not at one of KEDA's polls", r.Run, s.At+sec(outcome.StageScalerRaised))
		}
		same := []outcome.Stage{outcome.StageHPARead, outcome.StageHPAScaled, outcome.StagePodCreated, outcome.StagePodRunning}
		for _, st := range same {
			if sec(st) != sec(outcome.StageScalerRaised) {
				t.Errorf("%s: %q at %.1f s, want at the poll that raised the answer (%.1f s)", r.Run, st, sec(st), sec(outcome.StageScalerRaised))
			}
		}
		if got := sec(outcome.StagePodReady) - sec(outcome.StagePodCreated); got != ctl.PodStartup.Seconds() {
			t.Errorf("%s: the first new pod Ready %.1f s after it was created, want the pod startup, %s", r.Run, got, ctl.PodStartup)
		}
		for _, st := range []outcome.Stage{outcome.StagePodInSlice, outcome.StagePodInIstiod} {
			if sec(st) != sec(outcome.StagePodReady) {
				t.Errorf("%s: %q at %.1f s, want when Ready (%.1f s)", r.Run, st, sec(st), sec(outcome.StagePodReady))
			}
		}
		if sec(outcome.StagePodFirstRequest) < sec(outcome.StagePodReady) {
			t.Errorf("%s: first request at %.1f s, before the pod was Ready", r.Run, sec(outcome.StagePodFirstRequest))
		}
		if sec(outcome.StageCapacity) != r.Capacity[0].Seconds {
			t.Errorf("%s: capacity in the timeline %.1f s, in the result %.1f s", r.Run, sec(outcome.StageCapacity), r.Capacity[0].Seconds)
		}
	}
}

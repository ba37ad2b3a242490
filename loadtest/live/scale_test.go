package live_test

import (
	"math"
	"testing"

	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/live"
	"github.com/artt-dev/artt/loadtest/outcome"
)

// KEDA scales the live backends on artt-scaler's answers after a step of
// five times the rate (testdata/step.yaml): the pods the step needs are
// Ready within two HPA syncs and one startup of the step's evidence, the
// first pod added goes where the lab's scheduler puts it, and every pod
// added receives requests through istiod's endpoints.
func TestLiveKEDAScalesAfterAStep(t *testing.T) {
	needLive(t)
	plan, err := live.NewPlan("testdata/step.yaml", live.DefaultMaxCores)
	if err != nil {
		t.Fatal(err)
	}
	ctx, h := startHarness(t, plan)
	m, err := h.Run(ctx, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The lab at the live run's phases and idle time, for the log.
	lab, err := loadtest.Run(plan.Loaded, loadtest.Options{Emulator: emulator.Options{Phases: live.Phases(plan, m), PodsIdle: live.PodsIdle(plan, m)}})
	if err != nil {
		t.Fatal(err)
	}
	r := h.Result(m)
	steps := live.Capacity(m, lab[0].Capacity)
	if len(steps) != 1 {
		t.Fatalf("steps up = %+v, want the one at 50 s", steps)
	}
	s := steps[0]
	t.Logf("%d backends needed after the step: Ready %.0f s after it (lab %.0f s); %d requests, %d failed (lab %d), P99 %.0f ms (lab %.0f); %.0f replica-seconds (lab %.0f)",
		s.Needed, s.Seconds, lab[0].Capacity[0].Seconds, r.Requests, r.Timeouts+r.Errors, lab[0].Timeouts+lab[0].Errors, r.P99Ms, lab[0].P99Ms, r.ReplicaSeconds, lab[0].ReplicaSeconds)
	sc := plan.Scenario.Control
	// The step's evidence is in Prometheus within two scrapes (irate needs
	// two), the HPA acts at its next sync, a second sync if its scale-up
	// policy held the first back, and the pods then start.
	bound := 2*sc.SampleInterval.Duration + 2*sc.HPASyncPeriod.Duration + sc.PodStartup.Duration
	if math.IsNaN(s.Seconds) || s.Seconds > bound.Seconds() {
		t.Errorf("the %d backends the step needs were Ready after %.0f s, want within %s", s.Needed, s.Seconds, bound)
	}
	checkAddedPods(t, m, plan.Scenario.Duration.Seconds()-15)
	checkTimeline(t, live.Timeline(m, lab[0].Timeline), lab[0].Timeline)
}

// checkTimeline checks the live timeline of the step, logged beside the
// lab's: every stage saw it,
// and in the pipeline's order, each no earlier than the one that causes it
// but for the harness's polls (a quarter second) and the log's and
// Prometheus' own clocks.
func checkTimeline(t *testing.T, tl, lab []outcome.StepTimeline) {
	t.Helper()
	if len(tl) != 1 || len(lab) != 1 {
		t.Fatalf("%d timelines live and %d in the lab, want the one step's", len(tl), len(lab))
	}
	s := tl[0]
	t.Logf("%-32s %6s %6s  %s", "stage", "live s", "lab s", "live saw")
	for _, st := range outcome.Stages() {
		t.Logf("%-32s %6.1f %6.1f  %s", st, s.Seconds[st], lab[0].Seconds[st], s.Detail[st])
		if !s.Seen(st) {
			t.Errorf("stage %q never saw the step", st)
		}
	}
	const slack = 0.5
	causes := [][2]outcome.Stage{
		{outcome.StageScraped, outcome.StageScalerRaised}, {outcome.StageScalerRaised, outcome.StageHPARead},
		{outcome.StageHPAScaled, outcome.StagePodCreated}, {outcome.StagePodCreated, outcome.StagePodRunning},
		{outcome.StagePodRunning, outcome.StagePodReady}, {outcome.StagePodReady, outcome.StagePodInSlice},
		{outcome.StagePodInSlice, outcome.StagePodInIstiod}, {outcome.StagePodInSlice, outcome.StagePodFirstRequest},
	}
	for _, c := range causes {
		if s.Seconds[c[1]] < s.Seconds[c[0]]-slack {
			t.Errorf("%q at %.1f s came before its cause, %q at %.1f s", c[1], s.Seconds[c[1]], c[0], s.Seconds[c[0]])
		}
	}
}

// checkAddedPods checks the pods added after the load began: the first goes
// to the node with the most room (slow: only a frontend requests CPU
// there), and each Ready before readyBy seconds served requests.
func checkAddedPods(t *testing.T, m *live.Measured, readyBy float64) {
	t.Helper()
	added := 0
	for _, p := range m.Pods {
		if p.Created.IsZero() || !p.Created.After(m.Started) {
			continue
		}
		if added++; added == 1 && p.Node != "slow" {
			t.Errorf("the first pod added, %s, went to %s; LeastAllocated puts it on slow", p.Name, p.Node)
		}
		if !p.Ready.IsZero() && p.Ready.Sub(m.Started).Seconds() < readyBy && m.Served[p.Name] == 0 {
			t.Errorf("pod %s on %s, Ready %.0f s into the run, served no request", p.Name, p.Node, p.Ready.Sub(m.Started).Seconds())
		}
	}
	if added == 0 {
		t.Error("no pod was added")
	}
}

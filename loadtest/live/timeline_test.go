package live

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/outcome"
)

// A run's record read into a step's timeline: the scrape is the first at
// which the pods' rates, summed, pass the midpoint; artt-scaler's answer
// and the HPA's status count once they ask for more pods than the
// component had at the step, the HPA's average read back into its sum over
// the current replicas; the first pod created after the step is followed;
// and the report shows live beside the lab.
func TestTimelineFromARunsRecord(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	old := func(name string) RunPod {
		return RunPod{PodSpec: PodSpec{Name: name, Component: "backend", Request: 0.1}, Listed: at(-20), Created: at(-20), Ready: at(-20)}
	}
	added := RunPod{PodSpec: PodSpec{Name: "backend-new", Component: "backend", Request: 0.1}, Listed: at(61), Created: at(61.5), Ready: at(71.5)}
	counter := func(rates ...float64) []Sample { // one sample every 5 s from 45 s
		var out []Sample
		v := 0.0
		for i, r := range rates {
			v += r * 5
			out = append(out, Sample{At: at(45 + 5*float64(i)), Value: v})
		}
		return out
	}
	m := &Measured{Started: start, Pods: []RunPod{old("backend-a"), old("backend-b"), added},
		Pipeline: &Pipeline{
			// Each pod alone stays under the midpoint (20/s) after the
			// step at 50 s; their sum passes it at the scrape of 55 s.
			Arrivals: map[string][]Sample{"backend-a": counter(5, 5, 12, 30), "backend-b": counter(5, 5, 12, 30)},
			Evaluations: []Evaluation{
				{At: at(52), ScaledObject: "backend", CPURequest: 0.2, Value: 150, Target: 100, PerPod: true}, // asks for 2: no more
				{At: at(57), ScaledObject: "backend", CPURequest: 0.2, Arrivals: 24, Value: 550, Target: 100, PerPod: true},
			},
			HPA: []HPAStatus{
				{At: at(40), HPA: "keda-hpa-backend", Current: 2, Desired: 2, Value: 75, Target: 100, PerPod: true},
				{At: at(60.2), HPA: "keda-hpa-backend", Current: 2, Desired: 6, Value: 275, Target: 100, PerPod: true},
			},
			InSlice:      map[string]time.Time{"backend-new": at(71.6)},
			InIstiod:     map[string]time.Time{"backend-new": at(71.7)},
			FirstArrival: map[string]time.Time{"backend-new": at(72)},
		}}
	step := outcome.StepCapacity{At: 50, Rate: 40, Component: "backend", Needed: 3}
	got := Timeline(m, []outcome.StepTimeline{outcome.NewStepTimeline(step, 20)})
	if len(got) != 1 {
		t.Fatalf("%d timelines, want 1", len(got))
	}
	tl := got[0]
	want := map[outcome.Stage]float64{
		outcome.StageScraped: 5, outcome.StageScalerRaised: 7, outcome.StageHPARead: 10.2, outcome.StageHPAScaled: 10.2, outcome.StageHPAEnough: 10.2,
		outcome.StagePodCreated: 11, outcome.StagePodRunning: 11.5, outcome.StagePodReady: 21.5, outcome.StagePodInSlice: 21.6,
		outcome.StagePodInIstiod: 21.7, outcome.StagePodFirstRequest: 22, outcome.StageCapacity: 21.5,
	}
	for st, w := range want {
		if math.Abs(tl.Seconds[st]-w) > 1e-6 {
			t.Errorf("%s: %.2f s after the step, want %.2f (%s)", st, tl.Seconds[st], w, tl.Detail[st])
		}
	}
	if tl.Before != 2 {
		t.Errorf("%d pods at the step, want 2", tl.Before)
	}
	if d := tl.Detail[outcome.StageHPARead]; !strings.Contains(d, "asks for 6") {
		t.Errorf("the HPA read %q; want its average of 275 over 2 replicas read as 550, asking for 6", d)
	}
	lab := outcome.NewStepTimeline(step, 20)
	lab.Saw(outcome.StageScraped, 55, "")
	c := Comparison{Live: &outcome.Result{Run: "r", Timeline: got}, Lab: &outcome.Result{Timeline: []outcome.StepTimeline{lab}}}
	if md := TimelineMarkdown([]Comparison{c}); !strings.Contains(md, "| scrape with the new rate | 5.0 / 5.0 |") || !strings.Contains(md, "| … Ready | 21.5 / – |") {
		t.Errorf("the report's timeline:\n%s", md)
	}
	// The report gives the phases the lab ran at.
	c.Phases, c.PodsIdle = &emulator.ScrapePhases{Wall: 1231.4, FirstPoll: 14.3, Slots: map[string][]float64{"backend": {2.8, 0.5}}}, 35
	if md := TimelineMarkdown([]Comparison{c}); !strings.Contains(md, "1231.400 s past the hour, KEDA's first poll 14.300 s after it, the initial pods idle 35.0 s") ||
		!strings.Contains(md, "backend 2.800 0.500.") {
		t.Errorf("the report's phases:\n%s", md)
	}
}

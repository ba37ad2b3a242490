package live

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/outcome"
)

// Timeline is, for each of the lab's step timelines (the same step,
// component, pods needed and midpoint), when each stage of the live
// pipeline first saw the step, from the run's record; nil when the run
// kept none.
func Timeline(m *Measured, lab []outcome.StepTimeline) []outcome.StepTimeline {
	if m.Pipeline == nil {
		return nil
	}
	out := make([]outcome.StepTimeline, len(lab))
	for i, l := range lab {
		t := outcome.NewStepTimeline(l.StepCapacity, l.Midpoint)
		at := m.Started.Add(time.Duration(l.At * float64(time.Second)))
		pods := componentPods(m, l.Component)
		for _, p := range pods {
			if !p.Created.After(at) && (p.Gone.IsZero() || p.Gone.After(at)) {
				t.Before++
			}
		}
		sawScrape(&t, m, pods)
		sawScaler(&t, m, pods)
		sawHPA(&t, m)
		t.SawFirstPod(podLives(m, pods))
		capacity := Capacity(m, []outcome.StepCapacity{l.StepCapacity})[0]
		t.StepCapacity.Seconds = capacity.Seconds
		t.Saw(outcome.StageCapacity, l.At+capacity.Seconds, "")
		out[i] = t
	}
	return out
}

func componentPods(m *Measured, component string) []RunPod {
	var out []RunPod
	for _, p := range m.Pods {
		if p.Component == component {
			out = append(out, p)
		}
	}
	return out
}

// sawScrape finds the first scrape after which Prometheus' arrivals at
// the component, each pod's rate between its last two samples summed over
// its pods, are past the step's midpoint.
func sawScrape(t *outcome.StepTimeline, m *Measured, pods []RunPod) {
	type rate struct {
		at, perSecond float64
		pod           string
	}
	var rates []rate
	for _, p := range pods {
		samples := m.Pipeline.Arrivals[p.Name]
		for i := 1; i < len(samples); i++ {
			dt := samples[i].At.Sub(samples[i-1].At).Seconds()
			if dt <= 0 {
				continue
			}
			dv := samples[i].Value - samples[i-1].Value
			if dv < 0 { // a restarted counter
				dv = samples[i].Value
			}
			rates = append(rates, rate{at: samples[i].At.Sub(m.Started).Seconds(), perSecond: dv / dt, pod: p.Name})
		}
	}
	slices.SortFunc(rates, func(a, b rate) int { return cmp.Compare(a.at, b.at) })
	latest := map[string]rate{}
	for _, r := range rates {
		latest[r.pod] = r
		var sum float64
		for _, l := range latest {
			if r.at-l.at <= stalePrometheusSeconds {
				sum += l.perSecond
			}
		}
		if sum > t.Midpoint {
			t.Saw(outcome.StageScraped, r.at, fmt.Sprintf("%.1f/s", sum))
		}
	}
}

// stalePrometheusSeconds bounds how old a pod's last rate may be to count
// in a sum: a pod gone or unscraped that long adds nothing.
const stalePrometheusSeconds = 30

// sawScaler finds artt-scaler's first answer after the step that asks for
// more pods than the component had then.
func sawScaler(t *outcome.StepTimeline, m *Measured, pods []RunPod) {
	if len(pods) == 0 {
		return
	}
	request := pods[0].Request
	for _, e := range m.Pipeline.Evaluations {
		if e.ScaledObject != backend.ObjectName(t.Component) {
			continue
		}
		in := outcome.ScalerInputs{Arrivals: e.Arrivals, CPU: e.CPU, ReadyPods: e.CPURequest / request, Value: e.Value, Target: e.Target, PerPod: e.PerPod}
		if in.AskedPods() > t.Before {
			t.Saw(outcome.StageScalerRaised, e.At.Sub(m.Started).Seconds(), in.String())
		}
	}
}

// sawHPA finds the HPA's first status after the step that read such an
// answer, its first scale-up, and its first desired count that covers the
// step.
func sawHPA(t *outcome.StepTimeline, m *Measured) {
	hpa := kedaHPAName(backend.ObjectName(t.Component))
	for _, s := range m.Pipeline.HPA {
		if s.HPA != hpa {
			continue
		}
		at := s.At.Sub(m.Started).Seconds()
		in := outcome.ScalerInputs{Value: s.Value, Target: s.Target, PerPod: s.PerPod, ReadyPods: float64(s.Current)}
		if s.PerPod {
			// The status's average is the metric's sum over the current
			// replicas (replica_calculator.go, GetExternalPerPodMetricReplicas).
			in.Value *= float64(s.Current)
		}
		if !math.IsNaN(s.Value) && in.AskedPods() > t.Before {
			t.Saw(outcome.StageHPARead, at, fmt.Sprintf("%.3g against %.3g: asks for %d", in.Value, s.Target, in.AskedPods()))
		}
		if int(s.Desired) > t.Before {
			t.Saw(outcome.StageHPAScaled, at, fmt.Sprintf("%d → %d", s.Current, s.Desired))
		}
		if int(s.Desired) >= t.Needed {
			t.Saw(outcome.StageHPAEnough, at, fmt.Sprintf("%d → %d", s.Current, s.Desired))
		}
	}
}

// podLives are the pods' stages in seconds into the run.
func podLives(m *Measured, pods []RunPod) []outcome.PodLife {
	rel := func(x time.Time) float64 {
		if x.IsZero() {
			return math.NaN()
		}
		return x.Sub(m.Started).Seconds()
	}
	var out []outcome.PodLife
	for _, p := range pods {
		out = append(out, outcome.PodLife{Name: p.Name, Created: rel(p.Listed), Running: rel(p.Created), Ready: rel(p.Ready),
			InSlice: rel(m.Pipeline.InSlice[p.Name]), InIstiod: rel(m.Pipeline.InIstiod[p.Name]), FirstReq: rel(m.Pipeline.FirstArrival[p.Name])})
	}
	return out
}

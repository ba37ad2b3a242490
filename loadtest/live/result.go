package live

import (
	"math"
	"slices"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/artt-dev/artt/internal/stats"
	"github.com/artt-dev/artt/loadtest/live/loadgen"
	"github.com/artt-dev/artt/loadtest/outcome"
)

// Result turns a run's measurements into the lab's result type, so the
// live run is reported as the lab reports its runs: the requests sent
// after the warm-up, their latency from the scheduled send time, the
// pods' CPU utilisation over the measured window and its balance per
// component, and the replica-seconds.
func (h *Harness) Result(m *Measured) *outcome.Result {
	sc := h.Plan.Scenario
	r := &outcome.Result{Scenario: sc.Name, Run: m.Run.Label(), Seed: sc.Seed, Routing: m.Run.Routing, Autoscaling: m.Run.Autoscaling,
		NetworkMs: math.NaN(), CrossNodeFraction: math.NaN()}
	warmup, timeoutMs := sc.Warmup.Seconds(), float64(sc.Workload.Timeout.Milliseconds())
	r.AfterEvents = outcome.EventImpacts(sc.Events)
	r.LoadSteps = outcome.LoadSteps(sc.Workload)
	for _, rec := range m.Records {
		if rec.At < warmup {
			continue
		}
		r.Requests++
		ok := rec.Code == codes.OK && rec.LatencyMs <= timeoutMs
		outcome.CountImpact(r.AfterEvents, rec.At, !ok, rec.LatencyMs)
		switch {
		case ok:
			r.Succeeded++
			r.LatenciesMs = append(r.LatenciesMs, rec.LatencyMs)
		case rec.Code == codes.OK || rec.Code == codes.DeadlineExceeded:
			r.Timeouts++
		default:
			r.Errors++
		}
	}
	if r.Requests > 0 {
		r.SuccessRate = float64(r.Succeeded) / float64(r.Requests)
	}
	r.SummarizeLatencies()
	var names []string
	for _, c := range sc.Application.Components {
		names = append(names, c.Name)
	}
	for _, pod := range m.Pods {
		from, to := podLife(pod, m.Started, warmup, sc.Duration.Seconds())
		if to <= from {
			continue
		}
		r.Pods = append(r.Pods, outcome.PodResult{Name: pod.Name, Component: pod.Component, Node: pod.Node, Seconds: to - from,
			Utilization: m.CPU[pod.Name] / (pod.Limit * (to - from))})
		r.ReplicaSeconds += to - from
	}
	r.SummarizePods(names, sc.Control.SampleInterval.Seconds())
	r.Series = series(m.Records, sc.Control.SampleInterval.Seconds(), sc.Duration.Seconds(), timeoutMs, readyCounts(m))
	return r
}

// podLife is the part of the measured window, [warmup, duration] seconds
// after the load's start, a pod lived in: from its creation (the harness's
// own pods, before the load) to its end (or the run's).
func podLife(p RunPod, started time.Time, warmup, duration float64) (from, to float64) {
	from, to = warmup, duration
	if !p.Created.IsZero() {
		from = max(from, p.Created.Sub(started).Seconds())
	}
	if !p.Gone.IsZero() {
		to = min(to, p.Gone.Sub(started).Seconds())
	}
	return from, to
}

// readyCounts is each component's count of Ready pods at t seconds after
// the load's start, as the lab samples it.
func readyCounts(m *Measured) func(t float64) map[string]int {
	return func(t float64) map[string]int {
		out := map[string]int{}
		at := m.Started.Add(time.Duration(t * float64(time.Second)))
		for _, p := range m.Pods {
			ready := p.Created.IsZero() || (!p.Ready.IsZero() && !p.Ready.After(at))
			if ready && (p.Gone.IsZero() || p.Gone.After(at)) {
				out[p.Component]++
			}
		}
		return out
	}
}

// series is the run sample interval by interval: the rate sent, the P99 of
// the requests answered in it, the timeouts.
func series(recs []loadgen.Record, interval, duration, timeoutMs float64, replicas func(t float64) map[string]int) []outcome.Point {
	n := int(math.Ceil(duration / interval))
	lat := make([][]float64, n)
	pts := make([]outcome.Point, n)
	for i := range pts {
		t := float64(i+1) * interval
		pts[i] = outcome.Point{T: t, P99Ms: math.NaN(), Replicas: replicas(t)}
	}
	for _, rec := range recs {
		i := min(int(rec.At/interval), n-1)
		pts[i].Rate += 1 / interval
		if rec.Code == codes.OK && rec.LatencyMs <= timeoutMs {
			j := min(int((rec.At+rec.LatencyMs/1000)/interval), n-1)
			lat[j] = append(lat[j], rec.LatencyMs)
		} else {
			pts[i].Timeouts++
		}
	}
	for i, xs := range lat {
		if len(xs) > 0 {
			slices.Sort(xs)
			pts[i].P99Ms = stats.Quantile(xs, 0.99)
		}
	}
	return pts
}

// Lag is the load generator's send-time error over a run: how late
// requests left after their scheduled time, in microseconds.
type Lag struct{ P50, P99, Max float64 }

// SendLag measures a run's send-time error.
func SendLag(m *Measured) Lag {
	var xs []float64
	for _, r := range m.Records {
		xs = append(xs, r.LagUs)
	}
	slices.Sort(xs)
	return Lag{P50: stats.Quantile(xs, 0.5), P99: stats.Quantile(xs, 0.99), Max: stats.Quantile(xs, 1)}
}

// ComponentCPU is a component's CPU per request over a run's window: what
// the scenario says its pods' requests need (CPUPerRequest ÷ their nodes'
// speed, weighted by the requests each pod answered), what their cgroups
// counted, what the requests burned as their own work, and what their
// servers spent beside the work, outside the pods' quotas (Cgroups); over
// the pods running at the window's end, as those stopped in it cannot say
// what they answered.
type ComponentCPU struct {
	Component                            string
	ScenarioMs, LiveMs, WorkMs, ServerMs float64
}

// CPUPerRequest is each component's ComponentCPU, in the scenario's order.
func (h *Harness) CPUPerRequest(m *Measured) []ComponentCPU {
	sc := h.Plan.Scenario
	var out []ComponentCPU
	for _, c := range sc.Application.Components {
		var served, nominal, cpu, work, server float64
		for _, pod := range m.Pods {
			if _, whole := m.Served[pod.Name]; pod.Component != c.Name || !whole {
				continue
			}
			speed := sc.Cluster.Nodes[h.Plan.nodeIndex(pod.Node)].Speed
			served += m.Served[pod.Name]
			nominal += m.Served[pod.Name] * c.CPUPerRequest.Seconds() / speed
			cpu += m.CPU[pod.Name]
			work += m.Work[pod.Name]
			server += m.Server[pod.Name]
		}
		out = append(out, ComponentCPU{Component: c.Name, ScenarioMs: 1000 * nominal / served, LiveMs: 1000 * cpu / served,
			WorkMs: 1000 * work / served, ServerMs: 1000 * server / served})
	}
	return out
}

// Capacity is, for each of the lab's steps up (the same step, component
// and count of pods needed), how soon after it the live run had that many
// Ready pods; NaN when it never did.
func Capacity(m *Measured, lab []outcome.StepCapacity) []outcome.StepCapacity {
	ready := readyCounts(m)
	out := slices.Clone(lab)
	for i := range out {
		s := &out[i]
		s.Seconds = math.NaN()
		times := []float64{s.At}
		for _, p := range m.Pods {
			if t := p.Ready.Sub(m.Started).Seconds(); p.Component == s.Component && !p.Ready.IsZero() && t >= s.At {
				times = append(times, t)
			}
		}
		slices.Sort(times)
		for _, t := range times {
			if ready(t)[s.Component] >= s.Needed {
				s.Seconds = t - s.At
				break
			}
		}
	}
	return out
}

package live

import (
	"math"
	"slices"

	"google.golang.org/grpc/codes"

	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/live/loadgen"

	"github.com/artt-dev/artt/internal/stats"
)

// Result turns a run's measurements into the lab's result type, so the
// live run is reported as the lab reports its runs: the requests sent
// after the warm-up, their latency from the scheduled send time, the
// pods' CPU utilisation over the measured window and its balance per
// component, and the replica-seconds.
func (h *Harness) Result(m *Measured) *emulator.Result {
	sc := h.Plan.Scenario
	r := &emulator.Result{Scenario: sc.Name, Run: m.Run.Label(), Seed: sc.Seed, Routing: m.Run.Routing, Autoscaling: m.Run.Autoscaling,
		NetworkMs: math.NaN(), CrossNodeFraction: math.NaN()}
	warmup, timeoutMs := sc.Warmup.Seconds(), float64(sc.Workload.Timeout.Milliseconds())
	for _, rec := range m.Records {
		if rec.At < warmup {
			continue
		}
		r.Requests++
		switch {
		case rec.Code == codes.OK && rec.LatencyMs <= timeoutMs:
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
	window := m.Window.Seconds()
	var names []string
	for _, c := range sc.Application.Components {
		names = append(names, c.Name)
	}
	for _, pod := range h.Plan.Pods {
		r.Pods = append(r.Pods, emulator.PodResult{Name: pod.Name, Component: pod.Component, Node: pod.Node, Seconds: window,
			Utilization: m.CPU[pod.Name] / (pod.Limit * window)})
		r.ReplicaSeconds += window
	}
	r.SummarizePods(names, sc.Control.SampleInterval.Seconds())
	r.Series = series(m.Records, sc.Control.SampleInterval.Seconds(), sc.Duration.Seconds(), timeoutMs, h.replicas())
	return r
}

// replicas is each component's count of pods.
func (h *Harness) replicas() map[string]int {
	out := map[string]int{}
	for _, p := range h.Plan.Pods {
		out[p.Component]++
	}
	return out
}

// series is the run sample interval by interval: the rate sent, the P99 of
// the requests answered in it, the timeouts.
func series(recs []loadgen.Record, interval, duration, timeoutMs float64, replicas map[string]int) []emulator.Point {
	n := int(math.Ceil(duration / interval))
	lat := make([][]float64, n)
	pts := make([]emulator.Point, n)
	for i := range pts {
		pts[i] = emulator.Point{T: float64(i+1) * interval, P99Ms: math.NaN(), Replicas: replicas}
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
// speed, weighted by the requests each pod answered) and what their
// cgroups counted, which adds everything a real server spends beside the
// work (gRPC, HTTP/2, the metrics).
type ComponentCPU struct {
	Component          string
	ScenarioMs, LiveMs float64
}

// CPUPerRequest is each component's ComponentCPU, in the scenario's order.
func (h *Harness) CPUPerRequest(m *Measured) []ComponentCPU {
	sc := h.Plan.Scenario
	var out []ComponentCPU
	for _, c := range sc.Application.Components {
		var served, nominal, cpu float64
		for _, pod := range h.Plan.Pods {
			if pod.Component != c.Name {
				continue
			}
			speed := sc.Cluster.Nodes[h.Plan.nodeIndex(pod.Node)].Speed
			served += m.Served[pod.Name]
			nominal += m.Served[pod.Name] * c.CPUPerRequest.Seconds() / speed
			cpu += m.CPU[pod.Name]
		}
		out = append(out, ComponentCPU{Component: c.Name, ScenarioMs: 1000 * nominal / served, LiveMs: 1000 * cpu / served})
	}
	return out
}

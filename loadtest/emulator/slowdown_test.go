package emulator

import (
	"math"
	"testing"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
	"github.com/artt-dev/artt/traffic"
)

// TestSlowdownsShowAsAClusterShowsThem runs one pod (limit 1 core, 10 ms
// a request, 50 requests a second: half its limit) on a 4-core node under
// each kind of slowdown from the start, and reads its cgroup's counters
// over the run as Prometheus would: CPU, CPU pressure and own-quota
// throttled periods.
func TestSlowdownsShowAsAClusterShowsThem(t *testing.T) {
	cases := []struct {
		name            string
		event           *scenario.Event
		costRatio       float64 // CPU per request against the healthy 10 ms
		stretchLo, hiSt float64 // traffic.Group.CPUStretch of the run's means
		throttled       bool    // its own quota throttled it
		why             string
	}{
		{"healthy", nil, 1, 1, 1, true,
			"its waiting is all in the periods its own quota throttles it (two requests at once on one core's limit)"},
		{"slower CPU", &scenario.Event{Type: "node-slowdown", Speed: 0.5}, 2, 1, 1, true,
			"every request costs twice the CPU; what it waits for is its own limit"},
		// A neighbour's four busy threads beside a pod that wants one core
		// leave it 4/5 of a core (five entities of equal weight wanting a
		// core each on four), as a quota of 0.8 cores over the node's pods does: its
		// load of 0.5 cores is then an M/M/1 processor-sharing queue at
		// ρ = 0.625, whose k requests each run 0.8/k of the time. Its CPU
		// is 0.8 ρ = 0.5 cores and its waiting Σ P(k) (1 − 0.8/k) =
		// ρ + 0.8 (1 − ρ) ln(1 − ρ) = 0.331 s/s: stretched 1.66×.
		{"neighbour", &scenario.Event{Type: "node-contention", Cores: 4}, 1, 1.66 * 0.92, 1.66 * 1.08, false,
			"CFS gives it 0.8 of a core; its own quota is never reached"},
		{"quota over the node", &scenario.Event{Type: "node-quota", Cores: 0.8}, 1, 1.66 * 0.92, 1.66 * 1.08, false,
			"0.8 cores for its pods; the kernel counts the throttling on the node's cgroup, not the pod's"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := stations{n: 1, gateways: 1, limit: 1, lambda: 50, mu: 100, requests: 20000, routing: "random", seed: 3, warmup: 0.02}.scenario()
			sc.Cluster.Nodes[0].Cores = 4
			if c.event != nil {
				ev := *c.event
				ev.Node = sc.Cluster.Nodes[0].Name
				sc.Events = []scenario.Event{ev}
			}
			e, err := New(sc, sc.Runs[0], workload.Constant(sc.Workload.Rate), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Run(); err != nil {
				t.Fatal(err)
			}
			p := e.pods[0]
			span := sc.Duration.Seconds()
			pod := traffic.Replica{CPU: p.cpuSeconds / span, CPULimit: 1, CPUWaiting: p.waitingSeconds / span, ThrottledPeriods: p.throttledPeriods / span}
			if cost := p.cpuSeconds / float64(p.answered); math.Abs(cost/0.010/c.costRatio-1) > 0.03 {
				t.Errorf("CPU per request %.2f ms, want %.0f ms (%s)", cost*1000, 10*c.costRatio, c.why)
			}
			if got := pod.ThrottledPeriods > 0; got != c.throttled {
				t.Errorf("throttled periods %.2f/s, want throttled %v (%s)", pod.ThrottledPeriods, c.throttled, c.why)
			}
			stretch, ok := traffic.Group{Replicas: []traffic.Replica{pod}}.CPUStretch(0.5, 1.5, traffic.CFSPeriod)
			if !ok || stretch < c.stretchLo-1e-9 || stretch > c.hiSt {
				t.Errorf("stretch %.3f (waiting %.3f s/s beside %.3f cores), want %.2f–%.2f (%s)", stretch, pod.CPUWaiting, pod.CPU, c.stretchLo, c.hiSt, c.why)
			}
		})
	}
}

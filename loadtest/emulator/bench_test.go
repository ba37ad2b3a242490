package emulator

import (
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// BenchmarkEmulator measures simulated events and request hops per second
// of wall time on one goroutine: a five-component chain on five nodes at
// 300 requests per second for ten simulated minutes, random and
// least-request routing (per-sidecar state) beside
// ARTT routing (which adds the allocator's cycles).
func BenchmarkEmulator(b *testing.B) {
	for _, routing := range []string{"random", "least-request", "artt"} {
		b.Run("routing="+routing, func(b *testing.B) {
			var events, hops int64
			var wall time.Duration
			for b.Loop() {
				sc := chain(routing)
				e, err := New(sc, sc.Runs[0], workload.Constant(300), Options{})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				r, err := e.Run()
				if err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start)
				events += r.Events
				hops += r.Hops
			}
			b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
			b.ReportMetric(float64(hops)/wall.Seconds(), "hops/s")
		})
	}
}

func chain(routing string) *scenario.Scenario {
	sc := &scenario.Scenario{
		Name: "bench", Duration: scenario.Duration{Duration: 10 * time.Minute}, Seed: 1,
		Cluster:  scenario.Cluster{Delays: scenario.Delays{DefaultMs: 0.5, JitterMs: 0.1}},
		Workload: scenario.Workload{Type: "constant", Rate: 300},
		Runs:     []scenario.Run{{Routing: routing}},
	}
	names := []string{"n1", "n2", "n3", "n4", "n5"}
	for i, n := range names {
		sc.Cluster.Nodes = append(sc.Cluster.Nodes, scenario.Node{Name: n, Cores: 4, Speed: 1 - 0.08*float64(i)})
	}
	comps := []string{"a", "b", "c", "d", "e"}
	for i, c := range comps {
		comp := scenario.Component{Name: c, CPUPerRequest: scenario.Duration{Duration: 3 * time.Millisecond}, Replicas: 5, Placement: names}
		if i+1 < len(comps) {
			comp.Calls = []string{comps[i+1]}
		}
		sc.Application.Components = append(sc.Application.Components, comp)
	}
	if err := sc.FillAndValidate(); err != nil {
		panic(err)
	}
	return sc
}

package emulator

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// spreadOver is one single-worker pod (exponential service, mean 1 ms) on
// each of n nodes, one gateway on the first, no network delay, load rho,
// routed round robin by the given data plane.
func spreadOver(n int, rho float64, requests int, dataPlane string) *scenario.Scenario {
	zero := 0.0
	lambda := rho * float64(n) * 1000
	dur := float64(requests) / lambda
	sc := &scenario.Scenario{
		Name:     "spread",
		Duration: scenario.Duration{Duration: time.Duration(dur * float64(time.Second))},
		Warmup:   scenario.Duration{Duration: time.Duration(dur * 0.05 * float64(time.Second))},
		Seed:     5,
		Cluster: scenario.Cluster{
			Delays: scenario.Delays{LocalMs: &zero}, Ingress: scenario.Ingress{Replicas: 1}, DataPlane: dataPlane,
		},
		Workload: scenario.Workload{Type: "constant", Rate: lambda, Timeout: scenario.Duration{Duration: time.Hour}},
		Control:  scenario.Control{SampleInterval: scenario.Duration{Duration: time.Hour}},
		Runs:     []scenario.Run{{Routing: "round-robin"}},
	}
	comp := scenario.Component{Name: "s", CPUPerRequest: scenario.Duration{Duration: time.Millisecond}, CPULimit: 1, CPURequest: 1, Workers: 1, Replicas: n}
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		sc.Cluster.Nodes = append(sc.Cluster.Nodes, scenario.Node{Name: name, Cores: 1, Speed: 1})
		comp.Placement = append(comp.Placement, name)
	}
	sc.Application.Components = []scenario.Component{comp}
	if err := sc.FillAndValidate(); err != nil {
		panic(err)
	}
	return sc
}

// Under gRPC, ROUND_ROBIN draws a locality at random for each request
// (weighted_target's random picker), and with one pod per node that is a
// random split: every pod is an M/M/1 queue, whose mean sojourn at load ρ
// is 1/(μ(1 − ρ)), 5 ms at 0.8. Envoy's round robin cycles the pods, so
// each sees every fourth arrival (Erlang-4 gaps) and queues far less.
// Tolerance: 200,000 requests at ρ = 0.8 put the mean within a few per
// cent; we allow 6%.
func TestGRPCRoundRobinIsARandomSplitOverLocalities(t *testing.T) {
	const rho = 0.8
	want := 1 / (1000 * (1 - rho)) * 1000 // ms
	grpc := runQueue(t, spreadOver(4, rho, 200_000, scenario.DataPlaneGRPC))
	if math.Abs(grpc.MeanMs/want-1) > 0.06 {
		t.Errorf("gRPC round robin: mean sojourn %.2f ms, want M/M/1's %.2f ms within 6%%", grpc.MeanMs, want)
	}
	envoy := runQueue(t, spreadOver(4, rho, 200_000, scenario.DataPlaneEnvoy))
	t.Logf("mean sojourn: gRPC %.2f ms, Envoy %.2f ms, M/M/1 %.2f ms", grpc.MeanMs, envoy.MeanMs, want)
	if envoy.MeanMs > 0.7*want {
		t.Errorf("Envoy round robin: mean sojourn %.2f ms, want well under the random split's %.2f ms", envoy.MeanMs, want)
	}
}

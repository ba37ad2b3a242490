package emulator

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/outcome"
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

// A table policy's run under LEAST_REQUEST on gRPC is artt-traffic writing
// ROUND_ROBIN with its table and LEAST_REQUEST without: HEART, whose table
// is always in force, runs exactly as under the user's ROUND_ROBIN. ARTT
// hands four alike pods with no network between them over to least-request
// at its first measured cycle (5 s), and its callers get gRPC's
// least_request back, whose power of two choices queue far less than the
// random split's M/M/1 (5 ms at ρ = 0.8); under the user's ROUND_ROBIN there
// is nothing to hand over to.
func TestOnGRPCATableBringsItsOwnRoundRobin(t *testing.T) {
	run := func(routing, lb string) *outcome.Result {
		sc := spreadOver(4, 0.8, 200_000, scenario.DataPlaneGRPC)
		sc.Control.SampleInterval = scenario.Duration{Duration: time.Second}
		sc.Control.TrafficCycle = scenario.Duration{Duration: 5 * time.Second}
		sc.Runs = []scenario.Run{{Routing: routing, LBPolicy: lb}}
		if err := sc.FillAndValidate(); err != nil {
			t.Fatal(err)
		}
		return runQueue(t, sc)
	}
	heartRR, heartLR := run("heart", "ROUND_ROBIN"), run("heart", "LEAST_REQUEST")
	if heartRR.MeanMs != heartLR.MeanMs || heartRR.P99Ms != heartLR.P99Ms {
		t.Errorf("HEART under the user's ROUND_ROBIN: mean %.3f ms, P99 %.3f; under its own: %.3f, %.3f; want the same run", heartRR.MeanMs, heartRR.P99Ms, heartLR.MeanMs, heartLR.P99Ms)
	}
	arttRR, arttLR := run("artt", "ROUND_ROBIN"), run("artt", "LEAST_REQUEST")
	t.Logf("mean sojourn: ARTT under the user's ROUND_ROBIN %.2f ms, under its own %.2f ms", arttRR.MeanMs, arttLR.MeanMs)
	if arttRR.MeanMs < 4.5 || arttLR.MeanMs > 0.7*arttRR.MeanMs {
		t.Errorf("ARTT: mean sojourn %.2f ms under the user's ROUND_ROBIN (want the random split's 5 ms), %.2f ms under its own (want least-request's, under 0.7 of it)", arttRR.MeanMs, arttLR.MeanMs)
	}
}

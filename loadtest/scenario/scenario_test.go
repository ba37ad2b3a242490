package scenario

import (
	"strings"
	"testing"
)

const valid = `
name: t
duration: 1m
cluster:
  nodes: [{name: a, cores: 2}, {name: b, cores: 2, speed: 0.8}]
application:
  components:
    - {name: front, cpuPerRequest: 2ms, replicas: 1, calls: [back]}
    - {name: back, cpuPerRequest: 5ms, replicas: 2}
workload: {type: constant, rate: 10}
runs: [{routing: heart}, {routing: random, autoscaling: hpa-cpu}]
`

func TestParseValidFillsDefaults(t *testing.T) {
	s, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"speed default", s.Cluster.Nodes[0].Speed, 1.0},
		{"ingress default", s.Cluster.IngressNode, "a"},
		{"entry default", s.Application.Entry, "front"},
		{"timeout default", s.Workload.Timeout.String(), "5s"},
		{"sample interval default", s.Control.SampleInterval.String(), "15s"},
		{"cpu limit default", s.Application.Components[1].CPULimit, 1.0},
		{"autoscaling default", s.Runs[0].Autoscaling, "none"},
		{"run label", s.Runs[1].Label(), "random+hpa-cpu"},
		{"gateway replicas default", s.Cluster.Ingress.Replicas, 2},
		{"data plane default", s.Cluster.DataPlane, DataPlaneEnvoy},
		{"gateway nodes default", strings.Join(s.Cluster.Ingress.Nodes, ","), "a"},
		{"table policy's lb default", s.Runs[0].LBPolicy, "LEAST_REQUEST"},
		{"random routing's lb", s.Runs[1].LBPolicy, "RANDOM"},
		{"hpa target default", s.Runs[1].CPUTarget, 70.0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

func TestParseErrorsNameFieldAndValue(t *testing.T) {
	cases := []struct {
		name, from, to string
		says           []string
	}{
		{"unknown field", "duration: 1m", "duration: 1m\ncolour: blue", []string{"colour", "unknown field"}},
		{"bad duration", "duration: 1m", "duration: soon", []string{"duration", "soon"}},
		{"bad nested duration", "cpuPerRequest: 5ms", "cpuPerRequest: fast", []string{"application.components[1].cpuPerRequest", "fast"}},
		{"wrong type", "rate: 10", "rate: lots", []string{"rate"}},
		{"unknown routing", "routing: heart", "routing: fastest", []string{"runs[0].routing", "fastest"}},
		{"unknown call", "calls: [back]", "calls: [nowhere]", []string{"application.components[0].calls[0]", "nowhere"}},
		{"call cycle", "replicas: 2}", "replicas: 2, calls: [front]}", []string{"cycles"}},
		{"zero cores", "cores: 2}, {name: b", "cores: 0}, {name: b", []string{"cluster.nodes[0].cores", "0"}},
		{"negative rate", "rate: 10", "rate: -1", []string{"workload.rate", "-1"}},
		{"duplicate run", "{routing: heart}, {routing: random, autoscaling: hpa-cpu}", "{routing: heart}, {routing: heart}", []string{"duplicate run"}},
		{"not yaml", "runs:", "runs: [", []string{"YAML"}},
		{"unknown lb policy", "{routing: heart}", "{routing: heart, lbPolicy: FASTEST}", []string{"runs[0].lbPolicy", "FASTEST"}},
		{"unknown data plane", "cores: 2, speed: 0.8}]", "cores: 2, speed: 0.8}]\n  dataPlane: linkerd", []string{"cluster.dataPlane", "linkerd"}},
		{"random routing on gRPC", "cores: 2, speed: 0.8}]", "cores: 2, speed: 0.8}]\n  dataPlane: grpc", []string{"runs[1].lbPolicy", "RANDOM", "gRPC"}},
		{"lb policy on a data-plane routing", "{routing: random, autoscaling: hpa-cpu}", "{routing: random, autoscaling: hpa-cpu, lbPolicy: ROUND_ROBIN}", []string{"runs[1].lbPolicy", "ROUND_ROBIN"}},
		{"cpu target without hpa", "{routing: heart}", "{routing: heart, cpuTarget: 60}", []string{"runs[0].cpuTarget", "60"}},
		{"one-point frontier", "runs:", "frontier: {cpuTargets: [60]}\nruns:", []string{"frontier.cpuTargets", "two"}},
		{"unordered frontier", "runs:", "frontier: {cpuTargets: [60, 50]}\nruns:", []string{"frontier.cpuTargets[1]", "50"}},
		{"kpa without a target", "{routing: heart}", "{routing: heart, autoscaling: kpa}", []string{"runs[0].target", "0"}},
		{"target on an hpa-cpu run", "{routing: random, autoscaling: hpa-cpu}", "{routing: random, autoscaling: hpa-cpu, target: 5}", []string{"runs[1].target", "5"}},
		{"negative keda-rps target", "{routing: heart}", "{routing: heart, autoscaling: keda-rps, target: -3}", []string{"runs[0].target", "-3"}},
		{"floor that autoscales", "{routing: random, autoscaling: hpa-cpu}", "{routing: random, autoscaling: hpa-cpu, floor: true}", []string{"runs[1].floor"}},
		{"lookahead without an oracle", "{routing: heart}", "{routing: heart, autoscaling: hpa-cpu, lookahead: 30s}", []string{"runs[0].lookahead", "30s"}},
		{"unordered oracle sweep", "runs:", "frontier: {cpuTargets: [50, 60], oracleTargets: [80, 70]}\nruns:", []string{"frontier.oracleTargets[1]", "70"}},
		{"one-point kpa sweep", "runs:", "frontier: {cpuTargets: [50, 60], kpaTargets: [1]}\nruns:", []string{"frontier.kpaTargets", "two"}},
		{"unordered rps sweep", "runs:", "frontier: {cpuTargets: [50, 60], rpsTargets: [20, 10]}\nruns:", []string{"frontier.rpsTargets[1]", "10"}},
		{"no scale-up pods", "runs:", "control: {hpaScaleUpPods: -1}\nruns:", []string{"control.hpaScaleUpPods", "-1"}},
		{"node in two racks", "speed: 0.8}]", "speed: 0.8}]\n  delays: {rackMs: 0.2, racks: [[a, b], [b]]}", []string{"cluster.delays.racks[1][0]", "already in racks[0]"}},
		{"rack of an unknown node", "speed: 0.8}]", "speed: 0.8}]\n  delays: {racks: [[a, c]]}", []string{"cluster.delays.racks[0][1]", "c"}},
		{"negative rack delay", "speed: 0.8}]", "speed: 0.8}]\n  delays: {rackMs: -1, racks: [[a, b]]}", []string{"cluster.delays.rackMs", "-1"}},
		{"contention without cores", "runs:", "events: [{at: 10s, type: node-contention, node: a, cores: -2}]\nruns:", []string{"events[0].cores", "-2"}},
		{"quota of no cores", "runs:", "events: [{at: 10s, type: node-quota, node: a}]\nruns:", []string{"events[0].cores", "0"}},
		{"quota on an unknown node", "runs:", "events: [{at: 10s, type: node-quota, node: z, cores: 1}]\nruns:", []string{"events[0].node", "z"}},
		{"cores on a slowdown", "runs:", "events: [{at: 10s, type: node-slowdown, node: a, speed: 0.5, cores: 1}]\nruns:", []string{"events[0].cores", "node-contention"}},
		{"bad ejection percent", "{routing: heart}", "{routing: heart, outlierDetection: {maxEjectionPercent: 150}}", []string{"runs[0].outlierDetection.maxEjectionPercent", "150"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(valid, tc.from, tc.to, 1)
			if doc == valid {
				t.Fatalf("test case does not change the document (%q not found)", tc.from)
			}
			_, err := Parse([]byte(doc))
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

// On gRPC a table is carried under ROUND_ROBIN: the user's, or the one
// artt-traffic writes with it where the rule leaves the policy unset
// (LEAST_REQUEST here). No other policy carries one.
func TestATableOnGRPCNeedsRoundRobinOrLeavesItToARTT(t *testing.T) {
	onGRPC := strings.Replace(valid, "speed: 0.8}]", "speed: 0.8}]\n  dataPlane: grpc", 1)
	for _, lb := range []string{"ROUND_ROBIN", "LEAST_REQUEST"} {
		doc := strings.Replace(onGRPC, "runs: [{routing: heart}, {routing: random, autoscaling: hpa-cpu}]", "runs: [{routing: heart, lbPolicy: "+lb+"}]", 1)
		if _, err := Parse([]byte(doc)); err != nil {
			t.Errorf("a table under %s on gRPC: %v", lb, err)
		}
	}
	doc := strings.Replace(onGRPC, "runs: [{routing: heart}, {routing: random, autoscaling: hpa-cpu}]", "runs: [{routing: heart, lbPolicy: CLIENT_SIDE_WEIGHTED_ROUND_ROBIN}]", 1)
	_, err := Parse([]byte(doc))
	if err == nil || !strings.Contains(err.Error(), "runs[0].lbPolicy") || !strings.Contains(err.Error(), "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN") {
		t.Errorf("a table under weighted round robin on gRPC: error %v; want runs[0].lbPolicy named with its value", err)
	}
}

func TestFrontierExpandsIntoRunsOnce(t *testing.T) {
	doc := strings.Replace(valid, "runs:", "frontier: {cpuTargets: [50, 70, 90]}\nruns:", 1)
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FillAndValidate(); err != nil { // defaults filled again must not add runs again
		t.Fatal(err)
	}
	var labels []string
	for _, r := range s.Runs {
		if r.Frontier {
			labels = append(labels, r.Label()+"@"+r.Routing)
		}
	}
	if got := strings.Join(labels, ","); got != "hpa-50@least-request,hpa-70@least-request,hpa-90@least-request" {
		t.Errorf("frontier runs %s", got)
	}
}

// A sweep point the file adds itself (an oracle-free without lookahead, say)
// joins the block's sweeps; it does not replace them.
func TestAFilesOwnFrontierRunKeepsTheBlocksSweeps(t *testing.T) {
	doc := strings.Replace(valid, "runs: [", "frontier: {cpuTargets: [50, 70]}\nruns: [{routing: least-request, autoscaling: oracle-free, lookahead: 0s, cpuTarget: 60, frontier: true}, ", 1)
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range s.Runs {
		if r.Frontier {
			labels = append(labels, r.Label())
		}
	}
	if got, want := strings.Join(labels, ","), "oracle-free-0s-60,hpa-50,hpa-70"; got != want {
		t.Errorf("frontier runs %s, want %s", got, want)
	}
}

// The other autoscalers' sweeps and the floor expand into runs of their
// own, once, labelled by their knob.
func TestSweepsAndFloorExpandIntoRuns(t *testing.T) {
	doc := strings.Replace(valid, "runs:", "frontier: {cpuTargets: [50, 70], kpaTargets: [0.5, 1], rpsTargets: [20, 30], oracleTargets: [60, 80], floor: true}\nruns:", 1)
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FillAndValidate(); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range s.Runs {
		if r.Frontier || r.Floor {
			labels = append(labels, r.Label()+"@"+r.Autoscaling)
		}
	}
	want := "hpa-50@hpa-cpu,hpa-70@hpa-cpu,kpa-0.5@kpa,kpa-1@kpa,keda-rps-20@keda-rps,keda-rps-30@keda-rps," +
		"oracle-60@oracle,oracle-80@oracle,oracle-0s-60@oracle,oracle-0s-80@oracle,oracle-free-60@oracle-free,oracle-free-80@oracle-free,floor@none"
	if got := strings.Join(labels, ","); got != want {
		t.Errorf("sweep runs %s, want %s", got, want)
	}
	if s.Control.HPAScaleUpPercent != 100 || s.Control.HPAScaleUpPods != 4 {
		t.Errorf("HPA scale-up policy %v%% / %d pods, want Kubernetes' 100%% / 4", s.Control.HPAScaleUpPercent, s.Control.HPAScaleUpPods)
	}
}

func TestOutlierDetectionDefaultsAreIstios(t *testing.T) {
	doc := strings.Replace(valid, "{routing: heart}", "{routing: heart, outlierDetection: {}}", 1)
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	od := s.Runs[0].OutlierDetection
	if *od.Consecutive5xxErrors != 5 || od.Interval.String() != "10s" || od.BaseEjectionTime.String() != "30s" || od.MaxEjectionPercent != 10 {
		t.Errorf("defaults %+v; want Istio's 5, 10s, 30s, 10%%", od)
	}
}

// Every problem of a scenario file is reported at once: negative cores, a
// call to an unknown component and an unknown routing name, each with its
// field and value.
func TestParseReportsEveryProblemAtOnce(t *testing.T) {
	doc := strings.NewReplacer(
		"cores: 2}, {name: b", "cores: -4}, {name: b",
		"calls: [back]", "calls: [nowhere]",
		"routing: heart", "routing: fastest",
	).Replace(valid)
	_, err := Parse([]byte(doc))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"cluster.nodes[0].cores", "-4", "application.components[0].calls[0]", "nowhere", "runs[0].routing", "fastest"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 3 {
		t.Errorf("%d problems reported, want 3:\n%v", n, err)
	}
}

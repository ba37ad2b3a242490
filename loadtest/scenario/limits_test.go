package scenario

import (
	"errors"
	"strings"
	"testing"
)

// Every value found to exhaust the machine or hang the lab is refused by
// Validate, with the field and the value in the error.
func TestValuesPastTheLabsBoundsAreRefused(t *testing.T) {
	cases := []struct {
		name, from, to, field string
	}{
		{"replicas", "replicas: 2}", "replicas: 1000000000}", "application.components[1].replicas"},
		{"maxReplicas", "replicas: 2}", "replicas: 2, maxReplicas: 100000}", "application.components[1].maxReplicas"},
		{"pods together", "replicas: 2}", "replicas: 1999, maxReplicas: 1999}", "application.components"},
		{"rate", "rate: 10", "rate: 1e308", "workload.rate"},
		{"duration", "duration: 1m", "duration: 2562047h", "duration"},
		{"nodes' cores", "cores: 2}", "cores: 1e9}", "cluster.nodes[0].cores"},
		{"workers", "cpuPerRequest: 5ms,", "cpuPerRequest: 5ms, workers: 100000000,", "application.components[1].workers"},
		{"timeout", "rate: 10}", "rate: 10, timeout: 10000h}", "workload.timeout"},
		{"trace's maxRate", "{type: constant, rate: 10}", "{type: trace, trace: {file: t.csv, secondsPerRow: 1, minRate: 1, maxRate: 1e300}}", "workload.trace.maxRate"},
		{"sample interval", "runs:", "control: {sampleInterval: 1ns}\nruns:", "control.sampleInterval"},
		{"negative traffic cycle", "runs:", "control: {trafficCycle: -1s}\nruns:", "control.trafficCycle"},
		{"outlier interval", "{routing: heart}", "{routing: round-robin, outlierDetection: {interval: 1ns}}", "runs[0].outlierDetection.interval"},
		{"delay", "nodes: [", "delays: {defaultMs: 1e300}\n  nodes: [", "cluster.delays.defaultMs"},
		{"gateway replicas", "nodes: [", "ingress: {replicas: 1000000}\n  nodes: [", "cluster.ingress.replicas"},
		{"history's periods", "rate: 10}", "rate: 10, history: {period: 1m, periods: 100000}}", "workload.history.periods"},
		{"history's period past the run", "rate: 10}", "rate: 10, history: {period: 2m, periods: 1}}", "workload.history.period"},
		{"a trace's history", "{type: constant, rate: 10}", "{type: trace, trace: {file: t.csv, secondsPerRow: 1, minRate: 1, maxRate: 2}, history: {period: 1m, periods: 1}}", "workload.history"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(valid, c.from) {
				t.Fatalf("%q is not in the valid scenario", c.from)
			}
			_, err := Parse([]byte(strings.Replace(valid, c.from, c.to, 1)))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("accepted, or not a field error: %v", err)
			}
			if !strings.Contains(err.Error(), c.field) {
				t.Errorf("error does not name %s: %v", c.field, err)
			}
		})
	}
}

// A request's calls are counted down the graph as often as they are made,
// and a graph whose calls multiply past the bound is refused.
func TestCallsPerRequestCountEveryCallDownTheGraph(t *testing.T) {
	s, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CallsPerRequest(); got != 1 {
		t.Errorf("front calls back once: %d calls a request", got)
	}
	// Ten layers, each calling the next twice: 2 + 4 + … + 1024 calls.
	doc := "name: t\nduration: 1m\ncluster: {nodes: [{name: a, cores: 2}]}\nworkload: {type: constant, rate: 1}\nruns: [{routing: random}]\napplication:\n  components:\n"
	for i := range 11 {
		line := "    - {name: c" + string(rune('a'+i)) + ", cpuPerRequest: 1ms, replicas: 1"
		if i < 10 {
			next := "c" + string(rune('a'+i+1))
			line += ", calls: [" + next + ", " + next + "]"
		}
		doc += line + "}\n"
	}
	_, err = Parse([]byte(doc))
	if err == nil || !strings.Contains(err.Error(), "calls a request") {
		t.Fatalf("2,046 calls a request accepted, or refused for another reason: %v", err)
	}
}

func TestCheckLoadBoundsHopsAndRequests(t *testing.T) {
	s, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckLoad(MaxHopsPerRun / 2); err != nil {
		t.Errorf("two hops a request at half the hops' bound refused: %v", err)
	}
	if err := s.CheckLoad(MaxHopsPerRun/2 + 1); err == nil || !strings.Contains(err.Error(), "workload") {
		t.Errorf("past the hops' bound accepted, or the field not named: %v", err)
	}
	s.Runs = make([]Run, MaxRequests/1_000_000+1)
	if err := s.CheckLoad(1_000_000); err == nil || !strings.Contains(err.Error(), "runs") {
		t.Errorf("past the requests' bound over the runs accepted, or the field not named: %v", err)
	}
}

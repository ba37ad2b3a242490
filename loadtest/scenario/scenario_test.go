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

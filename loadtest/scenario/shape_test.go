package scenario

import (
	"strings"
	"testing"
)

// A file's shape problems are reported together, each with its path and
// value, a misspelt field with the one it was likely meant to be.
func TestShapeProblemsAreReportedTogether(t *testing.T) {
	file := `name: bad
duration: 2m
cluster:
  nodes:
    - {name: n1, cores: "four", speed: 1}
application:
  components:
    - {name: web, cpuPerRequest: 5, replicas: 2.5}
    - {name: api, cpuPerRequest: 10ms, replicaz: 2}
workload: {type: constant, rate: 10, steps: 3}
runs:
  - {routing: artt, scalerMetadata: {normalization: 1}}
`
	_, err := Parse([]byte(file))
	if err == nil {
		t.Fatal("a file with six shape problems parsed")
	}
	for _, want := range []string{
		`cluster.nodes[0].cores = four: wrong type, want a number`,
		`application.components[0].cpuPerRequest = 5: wrong type, want a duration string`,
		`application.components[0].replicas = 2.5: wrong type, want a whole number`,
		`application.components[1].replicaz = (present): unknown field; did you mean "replicas"?`,
		`workload.steps = 3: wrong type, want a list`,
		`runs[0].scalerMetadata.normalization = 1: wrong type, want a string`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 6 {
		t.Errorf("%d problems reported, want the 6, once each:\n%v", n, err)
	}
}

func TestNearestIsAMisspellingOrNothing(t *testing.T) {
	fields := []string{"replicas", "routing", "rate", "runs"}
	for _, tc := range []struct{ in, want string }{
		{"replicaz", "replicas"}, {"Routing", "routing"}, {"rtae", "rate"}, {"placement", ""},
	} {
		if got := nearest(tc.in, fields); got != tc.want {
			t.Errorf("nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

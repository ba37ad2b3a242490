package traffic

import (
	"math"
	"testing"
)

func TestGroupCostPerRequest(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		reps []Replica
		want float64
		ok   bool
	}{
		{"Σ CPU ÷ Σ requests", []Replica{{CPU: 0.5, Requests: 50}, {CPU: 1.5, Requests: 50}}, 0.02, true},
		{"idle replicas say nothing", []Replica{{CPU: 0.5, Requests: 50}, {CPU: 0.3, Requests: 0}}, 0.01, true},
		{"unknown CPU is left out", []Replica{{CPU: 0.5, Requests: 50}, {CPU: nan, Requests: 50}}, 0.01, true},
		{"no request served", []Replica{{CPU: 0.5, Requests: 0}}, 0, false},
		{"no CPU", []Replica{{CPU: 0, Requests: 10}}, 0, false},
	}
	for _, c := range cases {
		got, ok := Group{Replicas: c.reps}.CostPerRequest()
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// A group's health reads with its evidence where there is some, as the
// routing logs print it.
func TestHealthSummaryCarriesTheEvidence(t *testing.T) {
	for _, c := range []struct {
		g    GroupShare
		want string
	}{
		{GroupShare{Health: "Healthy"}, "Healthy"},
		{GroupShare{Health: "Degraded", HealthWhy: "CPU per request 1.62× its baseline"}, "Degraded: CPU per request 1.62× its baseline"},
	} {
		if got := c.g.HealthSummary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.g, got, c.want)
		}
	}
}

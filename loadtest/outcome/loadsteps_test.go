package outcome

import (
	"reflect"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
)

func steps(rates ...float64) scenario.Workload {
	w := scenario.Workload{Type: "steps"}
	for i, r := range rates {
		w.Steps = append(w.Steps, scenario.Step{At: scenario.Duration{Duration: time.Duration(i) * 30 * time.Second}, Rate: r})
	}
	return w
}

func TestLoadStepsMarkEachChangeAndARampAtItsEnds(t *testing.T) {
	ramp := make([]float64, 10)
	for i := range ramp {
		ramp[i] = 50 + 10*float64(i)
	}
	cases := []struct {
		name string
		w    scenario.Workload
		want []LoadStep
	}{
		{"constant", scenario.Workload{Type: "constant", Rate: 60}, nil},
		{"one rate", steps(60), nil},
		{"up, a repeat, down", steps(60, 120, 120, 90), []LoadStep{{30, "load 60 → 120/s"}, {90, "load 120 → 90/s"}}},
		{"a ramp", steps(ramp...), []LoadStep{{30, "ramp from 50/s begins"}, {270, "ramp ends at 140/s"}}},
	}
	for _, c := range cases {
		if got := LoadSteps(c.w); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

package emulator

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// A replayed table replaces the run's policy: four alike pods at 0.2 of a
// core each of load in all, the gateway on n0. From the start the table
// sends n0's calls 75/25 to n1 and n2, so n1's pod works at 0.6 and n2's at
// 0.2; halfway through it is lifted and round robin spreads 0.2 to each.
// Over the measured span (from 5% of the run) that is n0 and n3 at 0.2 for
// its last 62.5 of 118.75 s, n1 at 0.6 then 0.2, n2 at 0.2 throughout.
func TestReplayedTablesRouteInPlaceOfThePolicy(t *testing.T) {
	sc := spreadOver(4, 0.2, 100_000, scenario.DataPlaneGRPC)
	sc.Runs = []scenario.Run{{Routing: "heart", LBPolicy: "ROUND_ROBIN"}}
	sc.Control.SampleInterval = scenario.Duration{Duration: time.Second} // pods count in utilisation after one
	if err := sc.FillAndValidate(); err != nil {
		t.Fatal(err)
	}
	half := sc.Duration.Seconds() / 2
	replay := []outcome.TableChange{
		{AtS: -3, Component: "s", Rows: map[string]map[string]uint32{"n0": {"n1": 75, "n2": 25}}},
		{AtS: half, Component: "s"},
	}
	r := runWith(t, sc, workload.Constant(sc.Workload.Rate), Options{Replay: replay})
	measured := sc.Duration.Seconds() - sc.Warmup.Seconds()
	after := sc.Duration.Seconds() - half
	want := map[string]float64{
		"n0": 0.2 * after / measured,
		"n1": 0.6*(half-sc.Warmup.Seconds())/measured + 0.2*after/measured,
		"n2": 0.2,
		"n3": 0.2 * after / measured,
	}
	for _, p := range r.Pods {
		if math.Abs(p.Utilization-want[p.Node]) > 0.02 {
			t.Errorf("pod on %s: utilisation %.3f, want %.3f within 0.02", p.Node, p.Utilization, want[p.Node])
		}
	}
	if r.Allocations != len(replay) {
		t.Errorf("%d tables installed, want the %d replayed", r.Allocations, len(replay))
	}
}

// A replayed table naming a node the scenario lacks is refused, naming it.
func TestAReplayedTableNamesTheScenariosNodes(t *testing.T) {
	sc := spreadOver(2, 0.2, 1000, scenario.DataPlaneGRPC)
	bad := []outcome.TableChange{{Component: "s", Rows: map[string]map[string]uint32{"n0": {"elsewhere": 100}}}}
	_, err := New(sc, sc.Runs[0], workload.Constant(sc.Workload.Rate), Options{Replay: bad})
	if err == nil || !strings.Contains(err.Error(), `"elsewhere"`) {
		t.Errorf("error %v, want one naming the node \"elsewhere\"", err)
	}
}

// Another draw of the policies' stream routes the same requests otherwise:
// the same arrivals and work, so the same CPU in all, spread over the pods
// by other random picks.
func TestAPolicyDrawKeepsTheRequests(t *testing.T) {
	sc := spreadOver(4, 0.5, 40_000, scenario.DataPlaneGRPC)
	sc.Control.SampleInterval = scenario.Duration{Duration: time.Second}
	run := func(draw uint64) *outcome.Result {
		return runWith(t, sc, workload.Constant(sc.Workload.Rate), Options{PolicyDraw: draw})
	}
	a, b := run(0), run(1)
	total := func(r *outcome.Result) (sum float64) {
		for _, p := range r.Pods {
			sum += p.Utilization
		}
		return sum
	}
	if a.Requests != b.Requests || math.Abs(total(a)/total(b)-1) > 0.005 {
		t.Errorf("draws 0 and 1: %d and %d requests, CPU %.4f and %.4f cores; want the same requests and work", a.Requests, b.Requests, total(a), total(b))
	}
	moved := false
	for i := range a.Pods {
		moved = moved || a.Pods[i].Utilization != b.Pods[i].Utilization
	}
	if !moved || a.P99Ms == b.P99Ms {
		t.Errorf("draws 0 and 1 routed alike (P99 %.3f and %.3f ms): the picks did not change", a.P99Ms, b.P99Ms)
	}
}

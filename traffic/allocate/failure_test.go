package allocate

import (
	"errors"
	"testing"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
)

// One component whose route fails is reported on its own, and every other
// component is routed as usual: a bad record or a solver's refusal for one
// component no longer keeps every component's last routing.
func TestAComponentsFailureIsItsOwn(t *testing.T) {
	s := pair(1, 0.5)
	s.Components = append(s.Components, traffic.Component{Name: "C"})
	s.Calls = append(s.Calls, graph.Call{From: "A", To: "C", Rate: 50})
	for _, n := range []string{"n1", "n2"} {
		s.Replicas = append(s.Replicas, traffic.Replica{Name: "c-" + n, Component: "C", Node: n, Ready: true, CPU: 0.1, CPULimit: 1, Requests: 50})
	}
	x, err := traffic.NewIndex(s)
	if err != nil {
		t.Fatal(err)
	}
	broken := errors.New("demands = []: must not be empty")
	working := stateless{name: "equal", opts: DefaultOptions(), route: mustPolicy(t, "equal", DefaultOptions()).(stateless).route}
	routes, failed := eachDownstream(x, 2, func(x *traffic.Index, component string) (traffic.Route, bool, error) {
		if component == "B" {
			return traffic.Route{}, false, broken
		}
		return working.route(x, component)
	})
	if len(failed) != 1 || failed[0].Component != "B" || !errors.Is(failed[0].Err, broken) {
		t.Errorf("failed %v, want B alone with its error", failed)
	}
	if len(routes) != 1 || routes[0].Component != "C" || len(routes[0].Sources) == 0 {
		t.Errorf("routes %v, want C routed", routes)
	}
}

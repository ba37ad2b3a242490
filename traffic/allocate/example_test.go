package allocate_test

import (
	"fmt"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/allocate"
)

// One measurement of a frontend calling a backend, each with a pod on two
// nodes 10 ms apart; the backend's pod on n2 needs twice the CPU per
// request. HEART gives the slow node a third of the backend's traffic (its
// share of the capacity): n1's frontend keeps its half local, and n2's keeps
// two thirds of its own and sends a third to n1.
func ExampleNew() {
	s := traffic.Snapshot{
		At:         time.Unix(100, 0),
		Nodes:      []traffic.Node{{Name: "n1", Ready: true, Locality: "r/z/n1"}, {Name: "n2", Ready: true, Locality: "r/z/n2"}},
		Components: []traffic.Component{{Name: "frontend"}, {Name: "backend"}},
		Calls:      []graph.Call{{From: "frontend", To: "backend", Rate: 100}},
		Delays:     []graph.Delay{{From: "n1", To: "n2", Ms: 10}, {From: "n2", To: "n1", Ms: 10}},
		Replicas: []traffic.Replica{
			{Name: "frontend-1", Component: "frontend", Node: "n1", Ready: true, CPU: 0.1, CPULimit: 1, Requests: 50},
			{Name: "frontend-2", Component: "frontend", Node: "n2", Ready: true, CPU: 0.1, CPULimit: 1, Requests: 50},
			{Name: "backend-1", Component: "backend", Node: "n1", Ready: true, CPU: 0.25, CPULimit: 1, Requests: 50},
			{Name: "backend-2", Component: "backend", Node: "n2", Ready: true, CPU: 0.5, CPULimit: 1, Requests: 50},
		},
	}
	policy, err := allocate.New("heart", allocate.DefaultOptions())
	if err != nil {
		panic(err)
	}
	a, err := policy.Allocate(s)
	if err != nil {
		panic(err)
	}
	r, _ := a.Route("backend")
	for _, g := range r.Groups {
		fmt.Printf("%s gets %.3f of the backend's traffic\n", g.Node, g.Share)
	}
	fmt.Printf("n2's frontend sends %.3f to n1\n", r.Fraction("n2", "n1"))
	// Output:
	// n1 gets 0.667 of the backend's traffic
	// n2 gets 0.333 of the backend's traffic
	// n2's frontend sends 0.333 to n1
}

package larp_test

import (
	"fmt"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/placement/larp"
)

// A web component calling an api, two replicas each, on three nodes: n1 and
// n2 are 1 ms apart and n3 is 10 ms from both. LARP makes two groups, each a
// web and an api replica, and puts them on the two close nodes.
func ExampleGreedy() {
	var delays []graph.Delay
	for _, d := range []struct {
		a, b string
		ms   float64
	}{{"n1", "n2", 1}, {"n1", "n3", 10}, {"n2", "n3", 10}} {
		delays = append(delays, graph.Delay{From: d.a, To: d.b, Ms: d.ms}, graph.Delay{From: d.b, To: d.a, Ms: d.ms})
	}
	plan, err := larp.Greedy(larp.Problem{
		Components: []larp.Component{{Name: "web", Replicas: 2, CPU: 1, Memory: 1 << 30}, {Name: "api", Replicas: 2, CPU: 1, Memory: 1 << 30}},
		Calls:      []graph.Call{{From: "web", To: "api"}},
		Nodes:      []larp.Node{{Name: "n1", CPU: 4, Memory: 8 << 30}, {Name: "n2", CPU: 4, Memory: 8 << 30}, {Name: "n3", CPU: 4, Memory: 8 << 30}},
		Delays:     delays,
	})
	if err != nil {
		panic(err)
	}
	for _, g := range plan.Groups {
		fmt.Println(g.Node, g.Replicas)
	}
	fmt.Println("cost", plan.Cost, "ms")
	// Output:
	// n1 [{api 0} {web 0}]
	// n2 [{api 1} {web 1}]
	// cost 2 ms
}

package flow_test

import (
	"fmt"

	"github.com/artt-dev/artt/traffic/flow"
)

// Two upstream nodes send 60 and 40 requests per second to a component
// whose two downstream nodes should take 70 and 30. Sending locally costs
// nothing; across, 2 ms. The cheapest plan keeps all it can local: node 0
// sends its 60 to itself, node 1 sends 30 to itself and 10 across.
func ExampleTransport() {
	supplies, demands := []float64{60, 40}, []float64{70, 30}
	lanes := []flow.Lane{
		{From: 0, To: 0, Cost: 0}, {From: 0, To: 1, Cost: 2},
		{From: 1, To: 0, Cost: 2}, {From: 1, To: 1, Cost: 0},
	}
	flows, cost, err := flow.Transport(supplies, demands, lanes)
	if err != nil {
		panic(err)
	}
	for i, l := range lanes {
		if flows[i] > 0 {
			fmt.Printf("%d → %d: %g\n", l.From, l.To, flows[i])
		}
	}
	fmt.Println("cost", cost)
	// Output:
	// 0 → 0: 60
	// 1 → 0: 10
	// 1 → 1: 30
	// cost 20
}

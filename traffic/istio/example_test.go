package istio_test

import (
	"fmt"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/istio"
)

// A route sending n1's callers two thirds locally and a third to n2, and
// n2's all locally, as the `distribute` entries artt-traffic writes: integer
// weights summing to 100 per source, keyed by locality.
func ExampleDistributes() {
	route := traffic.Route{Component: "web", Sources: []traffic.Source{
		{Node: "n1", Supply: 0.5, To: []traffic.Amount{{Node: "n1", Value: 2.0 / 3}, {Node: "n2", Value: 1.0 / 3}}},
		{Node: "n2", Supply: 0.5, To: []traffic.Amount{{Node: "n2", Value: 1}}},
	}}
	locality := func(node string) (string, bool) { return "eu/z1/" + node, true }
	entries, err := istio.Distributes(route, locality)
	if err != nil {
		panic(err)
	}
	for _, d := range entries {
		fmt.Println(d.From, "→", d.To)
	}
	// Output:
	// eu/z1/n1 → map[eu/z1/n1:67 eu/z1/n2:33]
	// eu/z1/n2 → map[eu/z1/n2:100]
}

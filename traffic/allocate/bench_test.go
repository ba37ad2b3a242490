package allocate

import (
	"fmt"
	"testing"
)

// BenchmarkCycle times one full allocation cycle (every component), HEART
// beside ARTT and LATA, in two topologies:
//
//   - spread: replicas, nodes and components grow together (100/5/5,
//     400/20/5, 1,000/50/10, 10,000/500/100) and each component spreads over
//     every node it can, down to one pod per node at 10,000, where grouping
//     by node saves HEART nothing;
//   - span20: components of a fixed shape (100 replicas on 20 nodes) are
//     added, 1,000 to 10,000 replicas on 50 to 500 nodes, so the work per
//     component is constant and a cycle should grow linearly.
//
// Every operation is a cold cycle: a new policy, so nothing is recalled
// from the previous one (a periodic cycle's measurements change, and so do
// its problems). make bench turns the output into the README's table
// (hack/benchtable).
func BenchmarkCycle(b *testing.B) {
	type size struct{ replicas, nodes, components, span int }
	topologies := []struct {
		name  string
		sizes []size
	}{
		{"spread", []size{{100, 5, 5, 5}, {400, 20, 5, 20}, {1000, 50, 10, 50}, {10000, 500, 100, 500}}},
		{"span20", []size{{1000, 50, 10, 20}, {3000, 150, 30, 20}, {10000, 500, 100, 20}}},
	}
	for _, topo := range topologies {
		for _, sz := range topo.sizes {
			s := chainClusterSpan(1, sz.nodes, sz.components, sz.replicas/sz.components, sz.span)
			for _, name := range []string{"heart", "artt", "lata"} {
				b.Run(fmt.Sprintf("topology=%s/replicas=%d/nodes=%d/policy=%s", topo.name, sz.replicas, sz.nodes, name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						p := mustPolicy(b, name, DefaultOptions())
						if _, err := p.Allocate(s); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

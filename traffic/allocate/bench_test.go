package allocate

import (
	"fmt"
	"testing"
)

// BenchmarkCycle times one full allocation cycle (every component) as the
// cluster grows, HEART's node grouping beside LATA's per-replica
// formulation and ARTT. Replicas, nodes and components grow together:
// 100/5/5, 400/20/5, 1,000/50/10 and 10,000/500/100.
func BenchmarkCycle(b *testing.B) {
	sizes := []struct{ replicas, nodes, components int }{
		{100, 5, 5}, {400, 20, 5}, {1000, 50, 10}, {10000, 500, 100},
	}
	for _, size := range sizes {
		s := chainCluster(1, size.nodes, size.components, size.replicas/size.components)
		for _, name := range []string{"heart", "artt", "lata"} {
			b.Run(fmt.Sprintf("replicas=%d/nodes=%d/policy=%s", size.replicas, size.nodes, name), func(b *testing.B) {
				p := mustPolicy(b, name, DefaultOptions())
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Allocate(s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCycleFixedSpan grows the cluster by adding components of a fixed
// shape (100 replicas each, spread over 20 nodes): 1,000 to 10,000 replicas
// on 50 to 500 nodes. The work per component is then constant, so a cycle
// should grow linearly with the number of components.
func BenchmarkCycleFixedSpan(b *testing.B) {
	for _, size := range []struct{ components, nodes int }{{10, 50}, {30, 150}, {100, 500}} {
		s := chainClusterSpan(1, size.nodes, size.components, 100, 20)
		for _, name := range []string{"heart", "lata"} {
			b.Run(fmt.Sprintf("replicas=%d/nodes=%d/policy=%s", 100*size.components, size.nodes, name), func(b *testing.B) {
				p := mustPolicy(b, name, DefaultOptions())
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Allocate(s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

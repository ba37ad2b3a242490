package allocate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/artt-dev/artt/traffic"
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
//     component is constant and a cycle should grow linearly;
//   - zones: spread, on nodes in three zones whose links between zones are
//     the slow ones (inZones), where HEART's filter must search for the
//     slow links to keep in every component.
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
		{"zones", []size{{1000, 50, 10, 50}, {10000, 500, 100, 500}}},
	}
	for _, topo := range topologies {
		for _, sz := range topo.sizes {
			s := chainClusterSpan(1, sz.nodes, sz.components, sz.replicas/sz.components, sz.span)
			if topo.name == "zones" {
				s = inZones(s, 1)
			}
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

// BenchmarkPeriodicCycle times the cycles a running allocator makes: one
// policy kept from cycle to cycle, each cycle on a snapshot whose replicas'
// CPU and request rates and whose links' delays moved by up to ±5% from
// the last one's (eight snapshots of a random walk, visited back and
// forth, fifteen seconds apart). start=previous is the allocator as it
// runs: each component's problem starts from its last routing.
// start=cold solves every problem from scratch, the policy otherwise the
// same. LATA is left out: it keeps no routing from cycle to cycle. The
// topologies are BenchmarkCycle's.
func BenchmarkPeriodicCycle(b *testing.B) {
	type size struct{ replicas, nodes, components, span int }
	for _, sz := range []struct {
		topology string
		size
	}{{"spread", size{1000, 50, 10, 50}}, {"spread", size{10000, 500, 100, 500}}, {"span20", size{10000, 500, 100, 20}}, {"zones", size{10000, 500, 100, 500}}} {
		first := chainClusterSpan(1, sz.nodes, sz.components, sz.replicas/sz.components, sz.span)
		if sz.topology == "zones" {
			first = inZones(first, 1)
		}
		walk := driftingSnapshots(first, 8, 0.05)
		for _, name := range []string{"heart", "artt"} {
			for _, start := range []string{"cold", "previous"} {
				b.Run(fmt.Sprintf("topology=%s/replicas=%d/nodes=%d/policy=%s/start=%s", sz.topology, sz.replicas, sz.nodes, name, start), func(b *testing.B) {
					p := mustPolicy(b, name, DefaultOptions())
					memoOf(p).cold = start == "cold"
					cycle := 0
					allocate := func() {
						s := walk[pingPong(cycle, len(walk))]
						s.At = s.At.Add(time.Duration(cycle) * 15 * time.Second)
						s.MeasuredAt = s.At
						if _, err := p.Allocate(s); err != nil {
							b.Fatal(err)
						}
						cycle++
					}
					// The first cycles fill the policy's history and memory.
					for range len(walk) {
						allocate()
					}
					b.ReportAllocs()
					for b.Loop() {
						allocate()
					}
				})
			}
		}
	}
}

// driftingSnapshots is a random walk of n snapshots from s: each moves every
// replica's CPU and request rate and every link's delay by a factor drawn
// from [1 − step, 1 + step] of the one before.
func driftingSnapshots(s traffic.Snapshot, n int, step float64) []traffic.Snapshot {
	rng := rand.New(rand.NewPCG(7, 7))
	factor := func() float64 { return 1 + step*(2*rng.Float64()-1) }
	out := []traffic.Snapshot{s}
	for len(out) < n {
		next := out[len(out)-1]
		next.Replicas = slices.Clone(next.Replicas)
		for i := range next.Replicas {
			next.Replicas[i].CPU *= factor()
			next.Replicas[i].Requests *= factor()
		}
		next.Delays = slices.Clone(next.Delays)
		for i := range next.Delays {
			next.Delays[i].Ms *= factor()
		}
		out = append(out, next)
	}
	return out
}

// pingPong visits 0 … n−1 and back without repeating an end: 0 1 2 1 0 1 …
func pingPong(i, n int) int {
	if n < 2 {
		return 0
	}
	period := 2 * (n - 1)
	if k := i % period; k < n {
		return k
	}
	return period - i%period
}

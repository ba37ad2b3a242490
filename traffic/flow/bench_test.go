package flow

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomTransport draws NTAM's problem for nu upstream and nv downstream
// nodes: random supplies and demands, delays of 0.2–2 ms with one link in
// ten slow (20–50 ms), and free links on the diagonal (one node hosting
// both ends).
func randomTransport(seed uint64, nu, nv int) (supply, demand []float64, delay func(u, v int) float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	supply, demand = randomSimplex(rng, nu), randomSimplex(rng, nv)
	delays := make([]float64, nu*nv)
	for i := range delays {
		delays[i] = 0.2 + 1.8*rng.Float64()
		if rng.IntN(10) == 0 {
			delays[i] = 20 + 30*rng.Float64()
		}
		if i/nv == i%nv {
			delays[i] = 0
		}
	}
	return supply, demand, func(u, v int) float64 { return delays[u*nv+v] }
}

// everyLane joins every supply to every demand at the given delay.
func everyLane(nu, nv int, delay func(u, v int) float64) []Lane {
	lanes := make([]Lane, 0, nu*nv)
	for u := range nu {
		for v := range nv {
			lanes = append(lanes, Lane{From: int32(u), To: int32(v), Cost: delay(u, v)})
		}
	}
	return lanes
}

// transportation is randomTransport through a source and a sink, as
// MinCostFlow takes it.
func transportation(seed uint64, nu, nv int) (g *Network, s, t int) {
	supply, demand, delay := randomTransport(seed, nu, nv)
	g = NewNetworkSized(nu+nv+2, nu+nv+nu*nv)
	s, t = nu+nv, nu+nv+1
	for u, x := range supply {
		g.AddArc(s, u, x, 0)
	}
	for v, x := range demand {
		g.AddArc(nu+v, t, x, 0)
	}
	for u := range nu {
		for v := range nv {
			g.AddArc(u, nu+v, Inf, delay(u, v))
		}
	}
	return g, s, t
}

// BenchmarkMinCostFlow times the network simplex beside the successive
// shortest paths solver it replaced, on one component's problem.
func BenchmarkMinCostFlow(b *testing.B) {
	for _, n := range []int{20, 100, 400} {
		g, s, t := transportation(1, n, n)
		for _, solver := range []struct {
			name  string
			solve func(g *Network, s, t int, amount float64) (float64, error)
		}{{"simplex", (*Network).MinCostFlow}, {"ssp", (*Network).minCostFlowSSP}} {
			b.Run(fmt.Sprintf("nodes=%dx%d/solver=%s", n, n, solver.name), func(b *testing.B) {
				for b.Loop() {
					g.Reset()
					if _, err := solver.solve(g, s, t, 1); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTransportAmounts solves one 100 × 100 transportation problem,
// the same lanes and costs, with the random amounts HEART's measured group
// shares give and with the equal amounts LATA's one-replica-per-node
// problem has (an assignment problem): the difference is the simplex's
// alone.
func BenchmarkTransportAmounts(b *testing.B) {
	const n = 100
	supply, demand, delay := randomTransport(1, n, n)
	lanes := everyLane(n, n, delay)
	equal := make([]float64, n)
	for i := range equal {
		equal[i] = 1.0 / n
	}
	for _, c := range []struct {
		name              string
		supplies, demands []float64
	}{{"unequal", supply, demand}, {"equal", equal, equal}} {
		b.Run("amounts="+c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Transport(c.supplies, c.demands, lanes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTransportFrom solves a 100 × 100 transportation problem whose
// demands and lane costs moved by up to ±drift from one already solved:
// from scratch, and from the solved one's flows (TransportFrom), as a
// periodic cycle does.
func BenchmarkTransportFrom(b *testing.B) {
	const n = 100
	supply, demand, delay := randomTransport(1, n, n)
	lanes := everyLane(n, n, delay)
	previous := make([]float64, len(lanes))
	if _, err := TransportInto(previous, supply, demand, lanes); err != nil {
		b.Fatal(err)
	}
	for _, drift := range []float64{0.01, 0.05, 0.2} {
		rng := rand.New(rand.NewPCG(3, 3))
		factor := func() float64 { return 1 + drift*(2*rng.Float64()-1) }
		moved := make([]float64, n)
		for v := range moved {
			moved[v] = demand[v] * factor()
		}
		normalise(moved)
		movedLanes := make([]Lane, len(lanes))
		for k, l := range lanes {
			movedLanes[k] = Lane{From: l.From, To: l.To, Cost: l.Cost * factor()}
		}
		flows := make([]float64, len(lanes))
		for _, start := range []string{"cold", "previous"} {
			b.Run(fmt.Sprintf("drift=%g%%/start=%s", 100*drift, start), func(b *testing.B) {
				from := previous
				if start == "cold" {
					from = nil
				}
				for b.Loop() {
					if _, err := TransportFrom(flows, from, supply, moved, movedLanes); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

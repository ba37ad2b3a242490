package flow

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// transportation builds NTAM's network for nu upstream and nv downstream
// nodes with random supplies, demands and delays (one link in ten slow), as
// the allocators build it for one component.
func transportation(seed uint64, nu, nv int) (g *Network, s, t int) {
	rng := rand.New(rand.NewPCG(seed, 5))
	supply, demand := randomSimplex(rng, nu), randomSimplex(rng, nv)
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
			d := 0.2 + 1.8*rng.Float64()
			if rng.IntN(10) == 0 {
				d = 20 + 30*rng.Float64()
			}
			if u == v {
				d = 0
			}
			g.AddArc(u, nu+v, Inf, d)
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

func transportOnly(seed uint64, nu, nv int) (*Network, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	supply, demand := randomSimplex(rng, nu), randomSimplex(rng, nv)
	g := NewNetworkSized(nu+nv, nu*nv)
	b := make([]float64, nu+nv)
	copy(b, supply)
	for v, x := range demand {
		b[nu+v] = -x
	}
	for u := range nu {
		for v := range nv {
			d := 0.2 + 1.8*rng.Float64()
			if rng.IntN(10) == 0 {
				d = 20 + 30*rng.Float64()
			}
			if u == v {
				d = 0
			}
			g.AddArc(u, nu+v, Inf, d)
		}
	}
	return g, b
}

func BenchmarkTransship(b *testing.B) {
	for _, n := range []int{20, 100, 400} {
		g, sup := transportOnly(1, n, n)
		b.Run(fmt.Sprintf("nodes=%dx%d", n, n), func(b *testing.B) {
			for b.Loop() {
				if _, err := g.Transship(sup); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

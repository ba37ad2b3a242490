package flow

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

func TestMaxFlowHandWorked(t *testing.T) {
	// The CLRS figure 26.1 network: maximum flow 23.
	g := NewNetwork(6)
	for _, a := range [][3]float64{{0, 1, 16}, {0, 2, 13}, {2, 1, 4}, {1, 3, 12}, {3, 2, 9}, {2, 4, 14}, {4, 3, 7}, {3, 5, 20}, {4, 5, 4}} {
		g.AddArc(int(a[0]), int(a[1]), a[2], 0)
	}
	if got := g.MaxFlow(0, 5); math.Abs(got-23) > 1e-9 {
		t.Errorf("max flow = %v, want 23", got)
	}
	checkConservation(t, g, 0, 5)
}

// checkConservation verifies 0 ≤ flow ≤ capacity and conservation at every
// node other than s and t.
func checkConservation(t *testing.T, g *Network, s, tt int) {
	t.Helper()
	net := make([]float64, g.Nodes())
	for id := 0; id < len(g.arcs); id += 2 {
		f := g.Flow(id)
		if f < -1e-9 || f > g.arcs[id].original+1e-9 {
			t.Fatalf("arc %d carries %v outside [0, %v]", id, f, g.arcs[id].original)
		}
		from := g.arcs[id^1].to
		net[from] -= f
		net[g.arcs[id].to] += f
	}
	for v, x := range net {
		if v != s && v != tt && math.Abs(x) > 1e-9 {
			t.Fatalf("node %d does not conserve flow: net %v", v, x)
		}
	}
}

// TestMaxFlowMatchesLP solves random networks, antiparallel arcs included,
// and checks each answer three ways: against a linear program, against the
// capacity of the residual cut it leaves (equal only at a maximum), and for
// conservation at every node.
func TestMaxFlowMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for trial := range 300 {
		n := 2 + rng.IntN(12)
		ours := NewNetwork(n)
		type arc struct {
			from, to int
			capacity float64
		}
		var arcs []arc
		for u := range n {
			for v := range n {
				if u != v && rng.Float64() < 0.35 {
					c := math.Round(rng.Float64()*1000) / 100
					ours.AddArc(u, v, c, 0)
					arcs = append(arcs, arc{u, v, c})
				}
			}
		}
		got := ours.MaxFlow(0, n-1)
		if cut := minCut(ours, 0); math.Abs(cut-got) > 1e-9 {
			t.Fatalf("trial %d: flow %v but the residual cut has capacity %v", trial, got, cut)
		}
		checkConservation(t, ours, 0, n-1)

		// LP in gonum's standard form (min cᵀx, Ax = b, x ≥ 0): maximise
		// the flow F into the sink over arc flows x, each x + slack = its
		// capacity; at every node but the source, inflow − outflow (− F at
		// the sink) is held to 0 by a ≤ and a ≥ row. Every row has a slack
		// of its own, so A has full row rank.
		m := len(arcs)
		balances := 2 * (n - 1)
		rows, cols := m+balances, 2*m+1+balances
		A := mat.NewDense(rows, cols, nil)
		b := make([]float64, rows)
		c := make([]float64, cols)
		flowCol := 2 * m
		c[flowCol] = -1
		for k, a := range arcs {
			A.Set(k, k, 1)
			A.Set(k, m+k, 1)
			b[k] = a.capacity
		}
		row := m
		for v := 1; v < n; v++ {
			for sign := -1.0; sign <= 1; sign += 2 {
				for k, a := range arcs {
					if a.to == v {
						A.Set(row, k, sign)
					}
					if a.from == v {
						A.Set(row, k, -sign)
					}
				}
				if v == n-1 {
					A.Set(row, flowCol, -sign)
				}
				A.Set(row, flowCol+1+row-m, 1)
				row++
			}
		}
		value, _, err := lp.Simplex(c, A, b, 1e-12, nil)
		if err != nil {
			t.Fatalf("trial %d: LP: %v", trial, err)
		}
		if want := -value; math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: max flow %v, LP %v", trial, got, want)
		}
	}
}

func TestMinCostFlowHandWorked(t *testing.T) {
	// Two sources (supply 0.6, 0.4) and two sinks (demand 0.5 each); links
	// cost a→x 1, a→y 4, b→x 2, b→y 1. Optimal: a→x 0.5, a→y 0.1, b→y 0.4:
	// 0.5 + 0.4 + 0.4 = 1.3.
	g := NewNetwork(6)
	s, a, b, x, y, tt := 0, 1, 2, 3, 4, 5
	g.AddArc(s, a, 0.6, 0)
	g.AddArc(s, b, 0.4, 0)
	ax := g.AddArc(a, x, Inf, 1)
	ay := g.AddArc(a, y, Inf, 4)
	bx := g.AddArc(b, x, Inf, 2)
	by := g.AddArc(b, y, Inf, 1)
	g.AddArc(x, tt, 0.5, 0)
	g.AddArc(y, tt, 0.5, 0)
	cost, err := g.MinCostFlow(s, tt, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cost-1.3) > 1e-12 {
		t.Errorf("cost = %v, want 1.3", cost)
	}
	for _, c := range []struct {
		id   int
		want float64
	}{{ax, 0.5}, {ay, 0.1}, {bx, 0}, {by, 0.4}} {
		if got := g.Flow(c.id); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("flow on arc %d = %v, want %v", c.id, got, c.want)
		}
	}
}

func TestMinCostFlowInfeasibleAndNegative(t *testing.T) {
	g := NewNetwork(3)
	g.AddArc(0, 1, 1, 1)
	g.AddArc(1, 2, 0.5, 1)
	if _, err := g.MinCostFlow(0, 2, 1); !errors.Is(err, ErrInfeasible) {
		t.Errorf("error = %v, want ErrInfeasible", err)
	}
	h := NewNetwork(2)
	h.AddArc(0, 1, 1, -1)
	if _, err := h.MinCostFlow(0, 1, 1); !errors.Is(err, ErrNegativeCost) {
		t.Errorf("error = %v, want ErrNegativeCost", err)
	}
}

// TestMinCostFlowMatchesLP solves random transportation problems (what NTAM
// and LATA solve) both ways: the costs must agree to 1e-9.
func TestMinCostFlowMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	infeasible := 0
	defer func() {
		if infeasible > 100 {
			t.Errorf("%d of 200 instances infeasible: the oracle compared too few costs", infeasible)
		}
	}()
	for trial := range 200 {
		nu, nv := 1+rng.IntN(4), 1+rng.IntN(4)
		supply := randomSimplex(rng, nu)
		demand := randomSimplex(rng, nv)
		var links []Lane
		for u := range nu {
			for v := range nv {
				if rng.Float64() < 0.8 || u == 0 || v == 0 { // every source and sink has a link via source 0 and sink 0: always feasible
					links = append(links, Lane{From: int32(u), To: int32(v), Cost: math.Round(rng.Float64()*5000) / 100})
				}
			}
		}
		g, s, tt := throughSourceAndSink(supply, demand, links)
		got, ourErr := g.MinCostFlow(s, tt, 1)
		if ourErr != nil && !errors.Is(ourErr, ErrInfeasible) {
			t.Fatalf("trial %d: %v", trial, ourErr)
		}

		// LP: min Σ c·x subject to row sums = supply, column sums = demand
		// (the last column constraint is implied and dropped), x ≥ 0.
		rows := nu + nv - 1
		A := mat.NewDense(rows, len(links), nil)
		b := make([]float64, rows)
		c := make([]float64, len(links))
		copy(b, supply)
		copy(b[nu:], demand[:nv-1])
		for j, l := range links {
			c[j] = l.Cost
			A.Set(int(l.From), j, 1)
			if int(l.To) < nv-1 {
				A.Set(nu+int(l.To), j, 1)
			}
		}
		want, _, err := lp.Simplex(c, A, b, 1e-12, nil)
		if ourErr != nil {
			if !errors.Is(err, lp.ErrInfeasible) {
				t.Fatalf("trial %d: min-cost flow says infeasible, LP says %v, %v", trial, want, err)
			}
			infeasible++
			continue
		}
		if err != nil {
			t.Fatalf("trial %d: LP: %v", trial, err)
		}
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: min-cost flow %v, LP %v", trial, got, want)
		}
	}
}

func randomSimplex(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	sum := 0.0
	for i := range x {
		x[i] = 0.05 + rng.Float64()
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
	return x
}

// minCut returns the capacity of the cut between the nodes reachable from s
// in the residual network and the rest: equal to the flow value exactly when
// the flow is maximum (max-flow min-cut theorem).
func minCut(g *Network, s int) float64 {
	seen := make([]bool, g.Nodes())
	seen[s] = true
	stack := []int{s}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, id := range g.adj(u) {
			if a := g.arcs[id]; a.capacity > Epsilon && !seen[a.to] {
				seen[a.to] = true
				stack = append(stack, a.to)
			}
		}
	}
	cut := 0.0
	for id := 0; id < len(g.arcs); id += 2 {
		if from := g.arcs[id^1].to; seen[from] && !seen[g.arcs[id].to] {
			cut += g.arcs[id].original
		}
	}
	return cut
}

func (g *Network) hasArc(u, v int) bool {
	for _, id := range g.adj(u) {
		if id%2 == 0 && g.arcs[id].to == v {
			return true
		}
	}
	return false
}

func TestMaxFlowWithAntiparallelArcsHasMinCutCertificate(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for trial := range 300 {
		n := 2 + rng.IntN(12)
		g := NewNetwork(n)
		for u := range n {
			for v := range n {
				if u != v && rng.Float64() < 0.35 {
					g.AddArc(u, v, math.Round(rng.Float64()*1000)/100, 0)
				}
			}
		}
		got := g.MaxFlow(0, n-1)
		checkConservation(t, g, 0, n-1)
		if cut := minCut(g, 0); math.Abs(cut-got) > 1e-9 {
			t.Fatalf("trial %d: flow %v but the residual cut has capacity %v", trial, got, cut)
		}
	}
}

// A path of unbounded arcs has no maximum flow; Dinic's loop must stop
// rather than push Inf forever.
func TestMaxFlowUnboundedPath(t *testing.T) {
	g := NewNetwork(3)
	g.AddArc(0, 1, Inf, 0)
	g.AddArc(1, 2, Inf, 0)
	g.AddArc(0, 2, 1, 0)
	if got := g.MaxFlow(0, 2); !math.IsInf(got, 1) {
		t.Errorf("MaxFlow = %v, want +Inf", got)
	}
}

// throughSourceAndSink is a transportation problem as MinCostFlow takes it:
// a source feeding every supply, every demand feeding a sink, and each lane
// an uncapacitated arc.
func throughSourceAndSink(supply, demand []float64, lanes []Lane) (g *Network, s, t int) {
	nu, nv := len(supply), len(demand)
	g = NewNetwork(nu + nv + 2)
	s, t = nu+nv, nu+nv+1
	for u, x := range supply {
		g.AddArc(s, u, x, 0)
	}
	for v, x := range demand {
		g.AddArc(nu+v, t, x, 0)
	}
	for _, l := range lanes {
		g.AddArc(int(l.From), nu+int(l.To), Inf, l.Cost)
	}
	return g, s, t
}

// TestMaxFlowGoesOnAsArcsAreAddedMatchesAFreshOne: on random networks
// whose arcs (some from a node to itself) are added a few at a time between
// maximum flows, into the index's free places and past them, the flow
// carried on is after each batch the maximum flow of the same network built
// afresh.
func TestMaxFlowGoesOnAsArcsAreAddedMatchesAFreshOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	grew := 0
	for trial := range 300 {
		n := 4 + rng.IntN(12)
		s, sink := 0, n-1
		type added struct {
			u, v     int
			capacity float64
		}
		var arcs []added
		g := NewNetwork(n)
		value := g.MaxFlow(s, sink)
		for range 4 * n {
			a := added{rng.IntN(n), rng.IntN(n), []float64{Inf, 1, float64(rng.IntN(5)), rng.Float64()}[rng.IntN(4)]}
			if a.capacity == Inf && rng.IntN(4) > 0 {
				continue // arcs from a node to itself stay in: each takes two places
			}
			arcs = append(arcs, a)
			g.AddArc(a.u, a.v, a.capacity, 0)
			if rng.IntN(3) == 0 {
				continue // several arcs between two maximum flows
			}
			more := g.MaxFlow(s, sink)
			fresh := NewNetwork(n)
			for _, a := range arcs {
				fresh.AddArc(a.u, a.v, a.capacity, 0)
			}
			want := fresh.MaxFlow(s, sink)
			if math.IsInf(want, 1) {
				if !math.IsInf(more, 1) {
					t.Fatalf("trial %d, %d arcs: %v more on top of %v, a maximum flow afresh Inf", trial, len(arcs), more, value)
				}
				break
			}
			if math.Abs(value+more-want) > 1e-9 {
				t.Fatalf("trial %d, %d arcs: %v carried on, a maximum flow afresh %v", trial, len(arcs), value+more, want)
			}
			if more > Epsilon {
				grew++
			}
			value += more
		}
	}
	if grew < 300 {
		t.Errorf("the flow grew only %d times in 300 trials: the generator no longer tests carrying it on", grew)
	}
}

// TestMaxFlowGoesOnAfterArcsAreAdded: arcs added between maximum flows
// carry only what they allow on top of the flow already there.
func TestMaxFlowGoesOnAfterArcsAreAdded(t *testing.T) {
	g := NewNetwork(4) // s=0, a=1, b=2, t=3
	sa := g.AddArc(0, 1, 2, 0)
	g.AddArc(0, 2, 1, 0)
	if f := g.MaxFlow(0, 3); f != 0 {
		t.Fatalf("no arc into t, yet %v went", f)
	}
	aT := g.AddArc(1, 3, Inf, 0)
	if f := g.MaxFlow(0, 3); f != 2 {
		t.Fatalf("after adding a→t: %v more, want 2", f)
	}
	g.AddArc(2, 3, 0.5, 0)
	if f := g.MaxFlow(0, 3); f != 0.5 {
		t.Fatalf("after adding b→t at 0.5: %v more, want 0.5", f)
	}
	if g.Flow(sa) != 2 || g.Flow(aT) != 2 {
		t.Fatalf("flows %v and %v on s→a and a→t, want 2 and 2", g.Flow(sa), g.Flow(aT))
	}
}

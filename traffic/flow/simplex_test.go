package flow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// instance is a random min-cost flow problem on a general network:
// parallel and antiparallel arcs, finite and unbounded capacities, zero
// costs, and nodes no arc reaches.
type instance struct {
	n      int
	arcs   []instanceArc
	s, t   int
	amount float64
}

type instanceArc struct {
	from, to       int
	capacity, cost float64
}

func (in instance) network() (*Network, []int) {
	g := NewNetwork(in.n)
	ids := make([]int, len(in.arcs))
	for i, a := range in.arcs {
		ids[i] = g.AddArc(a.from, a.to, a.capacity, a.cost)
	}
	return g, ids
}

func randomInstance(rng *rand.Rand) instance {
	in := instance{n: 2 + rng.IntN(9)}
	for range rng.IntN(4 * in.n) {
		a := instanceArc{from: rng.IntN(in.n), to: rng.IntN(in.n), capacity: Inf, cost: math.Round(rng.Float64()*1000) / 100}
		if a.from == a.to {
			continue
		}
		if rng.IntN(3) > 0 {
			a.capacity = math.Round(rng.Float64()*100) / 100
		}
		if rng.IntN(6) == 0 {
			a.cost = 0
		}
		in.arcs = append(in.arcs, a)
	}
	in.s, in.t = rng.IntN(in.n), rng.IntN(in.n)
	for in.t == in.s {
		in.t = rng.IntN(in.n)
	}
	// Ask for a random part of the maximum flow, sometimes all of it, and
	// sometimes more than the network can carry.
	g, _ := in.network()
	maxFlow := g.MaxFlow(in.s, in.t)
	switch rng.IntN(4) {
	case 0:
		in.amount = maxFlow
	case 1:
		in.amount = maxFlow + 0.5
	default:
		in.amount = maxFlow * rng.Float64()
	}
	if math.IsInf(in.amount, 1) {
		in.amount = 1 + rng.Float64()
	}
	return in
}

// checkFlow verifies what any answer must satisfy: bounds on every arc,
// conservation at every node, amount leaving s and reaching t, and the
// reported cost equal to Σ flow × cost.
func checkFlow(in instance, g *Network, ids []int, cost float64) error {
	net := make([]float64, in.n)
	total := 0.0
	for i, a := range in.arcs {
		f := g.Flow(ids[i])
		if f < -1e-9 || f > a.capacity+1e-9 {
			return fmt.Errorf("arc %d (%d→%d, capacity %v) carries %v", i, a.from, a.to, a.capacity, f)
		}
		net[a.from] -= f
		net[a.to] += f
		total += f * a.cost
	}
	for v, x := range net {
		want := 0.0
		switch v {
		case in.s:
			want = -in.amount
		case in.t:
			want = in.amount
		}
		if math.Abs(x-want) > 1e-9 {
			return fmt.Errorf("node %d: net inflow %v, want %v", v, x, want)
		}
	}
	if math.Abs(total-cost) > 1e-9 {
		return fmt.Errorf("reported cost %v, flows cost %v", cost, total)
	}
	return nil
}

// TestSimplexMatchesSuccessiveShortestPaths: on random general networks the
// simplex and the solver it replaced agree on feasibility and on the cost
// to 1e-9, and the simplex's flow is valid.
func TestSimplexMatchesSuccessiveShortestPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	feasible, infeasible := 0, 0
	for trial := range 2000 {
		in := randomInstance(rng)
		g, ids := in.network()
		got, err := g.MinCostFlow(in.s, in.t, in.amount)
		oracle, _ := in.network()
		want, oracleErr := oracle.minCostFlowSSP(in.s, in.t, in.amount)
		if errors.Is(oracleErr, ErrInfeasible) {
			infeasible++
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("trial %d %+v: simplex %v, %v; successive shortest paths: infeasible", trial, in, got, err)
			}
			for i := range in.arcs {
				if f := g.Flow(ids[i]); f != 0 {
					t.Fatalf("trial %d: infeasible, yet arc %d carries %v", trial, i, f)
				}
			}
			continue
		}
		if oracleErr != nil || err != nil {
			t.Fatalf("trial %d %+v: simplex %v, oracle %v", trial, in, err, oracleErr)
		}
		feasible++
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d %+v: simplex cost %v, successive shortest paths %v", trial, in, got, want)
		}
		if err := checkFlow(in, g, ids, got); err != nil {
			t.Fatalf("trial %d %+v: %v", trial, in, err)
		}
	}
	if feasible < 1000 || infeasible < 200 {
		t.Errorf("%d feasible and %d infeasible instances: the generator no longer covers both", feasible, infeasible)
	}
}

// TestTransportMatchesMinCostFlow solves each transportation instance on
// lanes and with the successive-shortest-paths oracle through a source and
// a sink: the same cost (or both infeasible), and a flow that meets every
// supply and demand. The pooled simplex states are reused across instances
// of every size on the way.
func TestTransportMatchesMinCostFlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	infeasible := 0
	defer func() {
		if infeasible > 100 {
			t.Errorf("%d of 300 instances infeasible: too few costs compared", infeasible)
		}
	}()
	for trial := range 300 {
		nu, nv := 1+rng.IntN(12), 1+rng.IntN(12)
		supply, demand := randomSimplex(rng, nu), randomSimplex(rng, nv)
		st := NewNetwork(nu + nv + 2)
		s, tt := nu+nv, nu+nv+1
		for u, x := range supply {
			st.AddArc(s, u, x, 0)
		}
		for v, x := range demand {
			st.AddArc(nu+v, tt, x, 0)
		}
		var lanes []Lane
		for u := range nu {
			for v := range nv {
				if rng.IntN(4) > 0 || u == 0 || v == 0 {
					c := math.Round(rng.Float64()*5000) / 100
					st.AddArc(u, nu+v, Inf, c)
					lanes = append(lanes, Lane{From: int32(u), To: int32(v), Cost: c})
				}
			}
		}
		flows, got, err := Transport(supply, demand, lanes)
		want, oracleErr := st.minCostFlowSSP(s, tt, 1)
		if errors.Is(oracleErr, ErrInfeasible) {
			infeasible++
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("trial %d: Transport %v, %v; the oracle finds it infeasible", trial, got, err)
			}
			continue
		}
		if err != nil || oracleErr != nil {
			t.Fatalf("trial %d: Transport %v, oracle %v", trial, err, oracleErr)
		}
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: Transport %v, min-cost flow %v", trial, got, want)
		}
		sent, received := make([]float64, nu), make([]float64, nv)
		for k, l := range lanes {
			if flows[k] < 0 {
				t.Fatalf("trial %d: lane %d carries %v", trial, k, flows[k])
			}
			sent[l.From] += flows[k]
			received[l.To] += flows[k]
		}
		for u := range nu {
			if math.Abs(sent[u]-supply[u]) > 1e-9 {
				t.Fatalf("trial %d: Transport sends %v from supply %d of %v", trial, sent[u], u, supply[u])
			}
		}
		for v := range nv {
			if math.Abs(received[v]-demand[v]) > 1e-9 {
				t.Fatalf("trial %d: Transport delivers %v to demand %d of %v", trial, received[v], v, demand[v])
			}
		}
	}
}

func TestTransportRefusesBadInput(t *testing.T) {
	lane := []Lane{{0, 0, 1}}
	for name, c := range map[string]struct {
		supplies, demands []float64
		lanes             []Lane
	}{
		"totals differ":   {[]float64{1}, []float64{0.5}, lane},
		"NaN supply":      {[]float64{math.NaN()}, []float64{1}, lane},
		"negative demand": {[]float64{1, 0}, []float64{2, -1}, lane},
		"infinite supply": {[]float64{math.Inf(1)}, []float64{math.Inf(1)}, lane},
		"lane outside":    {[]float64{1}, []float64{1}, []Lane{{0, 1, 1}}},
		"negative lane":   {[]float64{1}, []float64{1}, []Lane{{-1, 0, 1}}},
		"negative cost":   {[]float64{1}, []float64{1}, []Lane{{0, 0, -1}}},
		"NaN cost":        {[]float64{1}, []float64{1}, []Lane{{0, 0, math.NaN()}}},
	} {
		if flows, _, err := Transport(c.supplies, c.demands, c.lanes); err == nil {
			t.Errorf("%s: accepted, flows %v", name, flows)
		}
	}
	// A demand no lane reaches.
	if _, _, err := Transport([]float64{1}, []float64{0.5, 0.5}, lane); !errors.Is(err, ErrInfeasible) {
		t.Errorf("unreachable demand: error %v, want ErrInfeasible", err)
	}
}

// FuzzMinCostFlow decodes a network from the fuzzer's bytes and checks the
// simplex against successive shortest paths and the flow's validity.
func FuzzMinCostFlow(f *testing.F) {
	f.Add([]byte{4, 0, 1, 10, 3, 1, 2, 200, 5, 0, 2, 30, 9, 2, 3, 255, 1}, uint8(0), uint8(3), uint8(50))
	f.Add([]byte{3, 0, 1, 0, 0, 1, 2, 0, 0}, uint8(0), uint8(2), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, s, tt, amount uint8) {
		if len(data) < 1 {
			return
		}
		in := instance{n: 2 + int(data[0])%10}
		for i := 1; i+3 < len(data) && len(in.arcs) < 60; i += 4 {
			a := instanceArc{from: int(data[i]) % in.n, to: int(data[i+1]) % in.n, capacity: float64(data[i+2]) / 10, cost: float64(data[i+3]) / 7}
			if data[i+2] == 255 {
				a.capacity = Inf
			}
			if a.from != a.to {
				in.arcs = append(in.arcs, a)
			}
		}
		in.s, in.t, in.amount = int(s)%in.n, int(tt)%in.n, float64(amount)/20
		if in.s == in.t {
			return
		}
		g, ids := in.network()
		got, err := g.MinCostFlow(in.s, in.t, in.amount)
		oracle, _ := in.network()
		want, oracleErr := oracle.minCostFlowSSP(in.s, in.t, in.amount)
		if errors.Is(oracleErr, ErrInfeasible) != errors.Is(err, ErrInfeasible) {
			t.Fatalf("%+v: simplex %v, %v; oracle %v, %v", in, got, err, want, oracleErr)
		}
		if err != nil {
			return
		}
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Fatalf("%+v: simplex cost %v, oracle %v", in, got, want)
		}
		if err := checkFlow(in, g, ids, got); err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
	})
}

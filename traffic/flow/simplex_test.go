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
	for trial := range 300 {
		nu, nv := 1+rng.IntN(12), 1+rng.IntN(12)
		supply, demand := randomSimplex(rng, nu), randomSimplex(rng, nv)
		var lanes []Lane
		for u := range nu {
			for v := range nv {
				if rng.IntN(4) > 0 || u == 0 || v == 0 {
					lanes = append(lanes, Lane{From: int32(u), To: int32(v), Cost: math.Round(rng.Float64()*5000) / 100})
				}
			}
		}
		if checkTransport(t, fmt.Sprintf("trial %d", trial), supply, demand, lanes) {
			infeasible++
		}
	}
	if infeasible > 100 {
		t.Errorf("%d of 300 instances infeasible: too few costs compared", infeasible)
	}
}

// TestTransportCoreMatchesEveryLane solves instances large enough that
// Transport prices only each end's cheapest lanes at first (core.go), with
// costs that tie, skewed amounts and zero supplies, against the oracle. Pricing
// the lanes outside the core is what makes these optimal: without it most
// of them come out dearer.
func TestTransportCoreMatchesEveryLane(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	infeasible, restricted := 0, 0
	for trial := range 60 {
		nu, nv := 10+rng.IntN(40), 10+rng.IntN(40)
		// Skewed amounts: a few ends hold most of the traffic and need
		// more than their own cheapest lanes.
		supply, demand := make([]float64, nu), make([]float64, nv)
		for u := range supply {
			supply[u] = math.Pow(rng.Float64(), 6)
		}
		for v := range demand {
			demand[v] = math.Pow(rng.Float64(), 6)
		}
		for range rng.IntN(4) {
			supply[rng.IntN(nu)] = 0
		}
		normalise(supply)
		normalise(demand)
		density := 3 + rng.IntN(8) // a lane is missing with chance 1/density
		var lanes []Lane
		for u := range nu {
			for v := range nv {
				if rng.IntN(density) > 0 {
					lanes = append(lanes, Lane{From: int32(u), To: int32(v), Cost: float64(rng.IntN(40)) / 4})
				}
			}
		}
		ns := new(simplex)
		ns.size(nu+nv, len(lanes))
		if err := ns.loadLanes(nu, lanes, nil); err != nil {
			t.Fatal(err)
		}
		if ns.priced < len(lanes) {
			restricted++
		}
		if checkTransport(t, fmt.Sprintf("trial %d (%d × %d)", trial, nu, nv), supply, demand, lanes) {
			infeasible++
		}
	}
	if restricted < 50 || infeasible > 20 {
		t.Errorf("%d of 60 instances priced a restricted core first and %d were infeasible: the generator no longer tests the core", restricted, infeasible)
	}
}

func normalise(x []float64) {
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	for i := range x {
		x[i] /= sum
	}
}

// checkTransport solves one instance with Transport and with the
// successive-shortest-paths oracle through a source and a sink, fails the
// test on a different cost or an invalid flow, and reports whether the
// instance is infeasible.
func checkTransport(t *testing.T, name string, supply, demand []float64, lanes []Lane) (infeasible bool) {
	t.Helper()
	return checkTransportFrom(t, name, nil, supply, demand, lanes)
}

// checkTransportFrom is checkTransport for TransportFrom, starting from
// previous.
func checkTransportFrom(t *testing.T, name string, previous, supply, demand []float64, lanes []Lane) (infeasible bool) {
	t.Helper()
	nu, nv := len(supply), len(demand)
	st, s, tt := throughSourceAndSink(supply, demand, lanes)
	flows := make([]float64, len(lanes))
	got, err := TransportFrom(flows, previous, supply, demand, lanes)
	want, oracleErr := st.minCostFlowSSP(s, tt, 1)
	if errors.Is(oracleErr, ErrInfeasible) {
		if !errors.Is(err, ErrInfeasible) {
			t.Fatalf("%s: Transport %v, %v; the oracle finds it infeasible", name, got, err)
		}
		return true
	}
	if err != nil || oracleErr != nil {
		t.Fatalf("%s: Transport %v, oracle %v", name, err, oracleErr)
	}
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("%s: Transport %v, min-cost flow %v", name, got, want)
	}
	sent, received := make([]float64, nu), make([]float64, nv)
	for k, l := range lanes {
		if flows[k] < 0 {
			t.Fatalf("%s: lane %d carries %v", name, k, flows[k])
		}
		sent[l.From] += flows[k]
		received[l.To] += flows[k]
	}
	for u := range nu {
		if math.Abs(sent[u]-supply[u]) > 1e-9 {
			t.Fatalf("%s: Transport sends %v from supply %d of %v", name, sent[u], u, supply[u])
		}
	}
	for v := range nv {
		if math.Abs(received[v]-demand[v]) > 1e-9 {
			t.Fatalf("%s: Transport delivers %v to demand %d of %v", name, received[v], v, demand[v])
		}
	}
	return false
}

// FuzzTransport decodes a transportation problem from the fuzzer's bytes,
// up to 20 supplies by 20 demands so that the core restriction is in play,
// and checks Transport against the oracle.
func FuzzTransport(f *testing.F) {
	f.Add([]byte{19, 19, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25})
	f.Add([]byte{3, 2, 0, 9, 4, 1, 1, 0, 5, 10, 15})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		nu, nv := 1+int(data[0])%20, 1+int(data[1])%20
		body := data[2:]
		at := func(i int) int { return int(body[i%len(body)]) }
		supply, demand := make([]float64, nu), make([]float64, nv)
		for u := range supply {
			supply[u] = float64(at(u) % 7)
		}
		for v := range demand {
			demand[v] = float64(at(nu+v) % 7)
		}
		if total(supply) == 0 || total(demand) == 0 {
			return
		}
		normalise(supply)
		normalise(demand)
		var lanes []Lane
		for u := range nu {
			for v := range nv {
				if b := at(nu + nv + u*nv + v); b%5 != 0 {
					lanes = append(lanes, Lane{From: int32(u), To: int32(v), Cost: float64(b) / 7})
				}
			}
		}
		name := fmt.Sprintf("%d × %d, %d lanes", nu, nv, len(lanes))
		checkTransport(t, name, supply, demand, lanes)
		// The same problem from a previous answer the bytes make up: any
		// flows at all, including ones no longer feasible.
		previous := make([]float64, len(lanes))
		for k := range previous {
			previous[k] = float64(at(3*k+1)%4) / 8
		}
		checkTransportFrom(t, name+", from a previous answer", previous, supply, demand, lanes)
	})
}

func total(x []float64) float64 {
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	return sum
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

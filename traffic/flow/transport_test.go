package flow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTransportFromMatchesOracle starts each problem from the answer to the
// previous one, which a periodic cycle does: the amounts drift, lanes come
// and go, and now and then the previous answer is unrelated noise. The
// answer must still be an optimum (the oracle's cost) and a valid flow.
func TestTransportFromMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 6))
	infeasible, problems := 0, 0
	for series := range 40 {
		nu, nv := 2+rng.IntN(30), 2+rng.IntN(30)
		supply, demand := randomSimplex(rng, nu), randomSimplex(rng, nv)
		costs := make([]float64, nu*nv)
		for i := range costs {
			costs[i] = math.Round(rng.Float64()*400) / 100
		}
		var previous []float64
		var previousLanes []Lane
		for cycle := range 8 {
			drift(rng, supply, 0.2)
			drift(rng, demand, 0.2)
			var lanes []Lane
			for u := range nu {
				for v := range nv {
					if rng.IntN(8) > 0 {
						lanes = append(lanes, Lane{From: int32(u), To: int32(v), Cost: costs[u*nv+v]})
					}
				}
			}
			start := carried(previousLanes, previous, lanes)
			if cycle == 5 {
				for k := range start {
					start[k] = rng.Float64() * float64(rng.IntN(2))
				}
			}
			problems++
			name := fmt.Sprintf("series %d cycle %d (%d × %d)", series, cycle, nu, nv)
			if checkTransportFrom(t, name, start, supply, demand, lanes) {
				infeasible++
				previous, previousLanes = nil, nil
				continue
			}
			previous = make([]float64, len(lanes))
			if _, err := TransportFrom(previous, start, supply, demand, lanes); err != nil {
				t.Fatal(err)
			}
			previousLanes = lanes
		}
	}
	if infeasible > problems/4 {
		t.Errorf("%d of %d problems infeasible: too few warm starts tested", infeasible, problems)
	}
}

// drift moves each amount by up to ±spread/2 of itself and rescales the
// amounts to sum to 1.
func drift(rng *rand.Rand, amounts []float64, spread float64) {
	for i := range amounts {
		amounts[i] *= 1 + spread*(rng.Float64()-0.5)
	}
	normalise(amounts)
}

// carried maps a previous answer onto new lanes: a lane between the same
// supply and demand carries its old flow, a new lane nothing.
func carried(previousLanes []Lane, previous []float64, lanes []Lane) []float64 {
	if previous == nil {
		return nil
	}
	old := map[[2]int32]float64{}
	for k, l := range previousLanes {
		old[[2]int32{l.From, l.To}] = previous[k]
	}
	out := make([]float64, len(lanes))
	for k, l := range lanes {
		out[k] = old[[2]int32{l.From, l.To}]
	}
	return out
}

// TestTransportFromKeepsATiedOptimum: when every lane costs the same, any
// flow that meets the amounts is optimal; started from one (a basic one,
// as every answer of the simplex is), TransportFrom must keep it rather
// than move traffic for nothing, and a cold start finds a different one
// here.
func TestTransportFromKeepsATiedOptimum(t *testing.T) {
	supplies, demands := []float64{0.3, 0.3, 0.4}, []float64{0.3, 0.3, 0.4}
	lanes := []Lane{{0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {1, 0, 1}, {1, 1, 1}, {1, 2, 1}, {2, 0, 1}, {2, 1, 1}, {2, 2, 1}}
	previous := []float64{0, 0, 0.3, 0, 0.3, 0, 0.3, 0, 0.1}
	flows := make([]float64, len(lanes))
	if _, err := TransportFrom(flows, previous, supplies, demands, lanes); err != nil {
		t.Fatal(err)
	}
	if !near(flows, previous) {
		t.Errorf("from %v: flows %v", previous, flows)
	}
	cold := make([]float64, len(lanes))
	if _, err := TransportInto(cold, supplies, demands, lanes); err != nil {
		t.Fatal(err)
	}
	if near(cold, previous) {
		t.Errorf("a cold start found %v too: the test cannot tell a warm start from a cold one", cold)
	}
}

// near reports whether two flows differ by rounding only.
func near(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-12 })
}

func TestTransportFromRefusesAMismatchedPrevious(t *testing.T) {
	lanes := []Lane{{0, 0, 1}, {0, 1, 1}}
	_, err := TransportFrom(make([]float64, 2), []float64{1}, []float64{1}, []float64{0.5, 0.5}, lanes)
	if err == nil || err.Error() != "1 previous flows for 2 lanes" {
		t.Errorf("error %v", err)
	}
}

// A cost near the largest float is refused as such, not reported as an
// infeasible problem; a cost of 1e300 on a small problem is still priced.
func TestCostsTooLargeToPriceAreRefused(t *testing.T) {
	supplies, demands := []float64{0.5, 0.5}, []float64{0.3, 0.7}
	lanes := func(c float64) []Lane { return []Lane{{0, 0, 1}, {0, 1, c}, {1, 0, 2}, {1, 1, 3}} }
	if _, _, err := Transport(supplies, demands, lanes(math.MaxFloat64)); !errors.Is(err, ErrCostTooLarge) {
		t.Errorf("Transport with a cost of MaxFloat64: error %v, want ErrCostTooLarge", err)
	}
	// Supply 0 must send 0.2 over the dear lane whatever it costs.
	if _, cost, err := Transport(supplies, demands, lanes(1e300)); err != nil || math.Abs(cost/(0.2e300)-1) > 1e-9 {
		t.Errorf("Transport with a cost of 1e300: cost %v, error %v; want 2e299", cost, err)
	}
	g := NewNetwork(2)
	g.AddArc(0, 1, 1, math.MaxFloat64)
	if _, err := g.MinCostFlow(0, 1, 1); !errors.Is(err, ErrCostTooLarge) {
		t.Errorf("MinCostFlow with a cost of MaxFloat64: error %v, want ErrCostTooLarge", err)
	}
}

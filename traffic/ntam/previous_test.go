package ntam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

// TestSolveFromPreviousMatchesCold: a component routed cycle after cycle,
// its shares drifting, its groups coming and going, each problem started
// from the last answer. The answer must cost what a cold solve's does, drop
// the same slow links, and deliver every share.
func TestSolveFromPreviousMatchesCold(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	nodes := make([]string, 30)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("n%d", i)
	}
	for series := range 30 {
		m := map[[2]string]float64{}
		for _, x := range nodes {
			for _, y := range nodes {
				if x != y && rng.Float64() < 0.95 {
					m[[2]string{x, y}] = math.Round(rng.ExpFloat64()*500) / 100
				}
			}
		}
		var previous []traffic.Source
		sup := randomAmounts(rng, nodes, 5+rng.IntN(20))
		dem := randomAmounts(rng, nodes, 5+rng.IntN(20))
		for cycle := range 6 {
			if cycle == 3 {
				// A group leaves and another arrives.
				dem = randomAmounts(rng, nodes, len(dem))
			}
			sup, dem = drifted(rng, sup), drifted(rng, dem)
			p := Problem{Supplies: sup, Demands: dem, Delays: ByName(sup, dem, delays(m))}
			cold, err := Solve(DefaultConfig(), p)
			if err != nil {
				t.Fatal(err)
			}
			p.Previous = previous
			warm, err := Solve(DefaultConfig(), p)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("series %d cycle %d", series, cycle)
			if math.Abs(warm.Cost-cold.Cost) > 1e-9 {
				t.Fatalf("%s: from the previous routing the cost is %v, cold %v", name, warm.Cost, cold.Cost)
			}
			if warm.RemovedLinks != cold.RemovedLinks || warm.KeptSlowUpToMs != cold.KeptSlowUpToMs {
				t.Fatalf("%s: removed %d and kept up to %v ms from the previous routing, %d and %v cold", name, warm.RemovedLinks, warm.KeptSlowUpToMs, cold.RemovedLinks, cold.KeptSlowUpToMs)
			}
			received := map[string]float64{}
			for _, s := range warm.Sources {
				for _, to := range s.To {
					received[to.Node] += s.Supply * to.Value
				}
			}
			for _, d := range dem {
				if math.Abs(received[d.Node]-d.Value) > 1e-9 {
					t.Fatalf("%s: group %s receives %v, wants %v", name, d.Node, received[d.Node], d.Value)
				}
			}
			previous = warm.Sources
		}
	}
}

// drifted moves each amount by up to ±10% and rescales them to sum to 1.
func drifted(rng *rand.Rand, as []traffic.Amount) []traffic.Amount {
	out := slices.Clone(as)
	sum := 0.0
	for i := range out {
		out[i].Value *= 0.9 + 0.2*rng.Float64()
		sum += out[i].Value
	}
	for i := range out {
		out[i].Value /= sum
	}
	return out
}

// TestSolveKeepsToThePreviousRoutingAmongTies: with every link equally
// fast, every routing that meets the shares is optimal. Started from the
// last cycle's routing, Solve keeps it instead of moving traffic for
// nothing (a cold solve chooses another here).
func TestSolveKeepsToThePreviousRoutingAmongTies(t *testing.T) {
	sup := amounts("a", 0.5, "b", 0.5)
	dem := amounts("c", 0.5, "d", 0.5)
	flat := func(string, string) (float64, bool) { return 1, true }
	p := Problem{Supplies: sup, Demands: dem, Delays: ByName(sup, dem, flat)}
	p.Previous = []traffic.Source{
		{Node: "a", Supply: 0.5, To: amounts("d", 1.0)},
		{Node: "b", Supply: 0.5, To: amounts("c", 1.0)},
	}
	warm, err := Solve(DefaultConfig(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(warm.Sources); got != fmt.Sprint(p.Previous) {
		t.Errorf("from %v: %v", p.Previous, got)
	}
	p.Previous = nil
	cold, err := Solve(DefaultConfig(), p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cold.Sources) == fmt.Sprint(warm.Sources) {
		t.Errorf("a cold solve routes %v too: the test cannot tell the previous routing was used", cold.Sources)
	}
}

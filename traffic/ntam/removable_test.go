package ntam

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

// largestRemovableByBisection is the search largestRemovable replaced, kept
// as its oracle: a binary search over the slowest prefixes, each check a
// maximum flow from nothing on a network without the removed links.
func largestRemovableByBisection(p Problem, links *links, slow []int) int {
	check := new(feasibility)
	feasibleWithout := func(k int) bool {
		newFeasibility(check, p, links, slow[:k])
		return check.g.MaxFlow(check.s, check.t) >= check.supplyFlow-tolerance
	}
	cuts := []int{0}
	for k := 1; k <= len(slow); k++ {
		if k == len(slow) || links.delay[slow[k]] != links.delay[slow[k-1]] {
			cuts = append(cuts, k)
		}
	}
	lo, hi := 0, len(cuts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if feasibleWithout(cuts[mid]) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cuts[lo]
}

// zonedProblem is a component spread over zones: links within a zone are
// fast, links between zones slow, each with its own delay (ties when
// rounded), some unmeasured; the amounts do not balance zone by zone, so
// some slow links must stay.
func zonedProblem(rng *rand.Rand, nu, nv, zones int, round float64) Problem {
	zone := map[string]int{}
	sup, dem := make([]traffic.Amount, nu), make([]traffic.Amount, nv)
	for i := range sup {
		sup[i] = traffic.Amount{Node: fmt.Sprintf("n%03d", i), Value: math.Pow(rng.Float64(), 2) + 0.01}
	}
	for j := range dem {
		dem[j] = traffic.Amount{Node: fmt.Sprintf("n%03d", j+nu/2), Value: math.Pow(rng.Float64(), 2) + 0.01}
	}
	sup, dem = traffic.Normalize(sup), traffic.Normalize(dem)
	for _, a := range append(append([]traffic.Amount(nil), sup...), dem...) {
		zone[a.Node] = rng.IntN(zones)
	}
	var delays []float64
	for _, s := range sup {
		for _, d := range dem {
			x := 0.2 + 0.4*rng.Float64()
			if zone[s.Node] != zone[d.Node] {
				x = 1.5 + rng.Float64()
				if round > 0 {
					x = math.Round(x/round) * round
				}
				if rng.IntN(10) == 0 {
					x = math.NaN()
				}
			}
			if s.Node == d.Node {
				x = 0
			}
			delays = append(delays, x)
		}
	}
	return Problem{Supplies: sup, Demands: dem, Delays: delays}
}

// TestLargestRemovableMatchesBisection: on zoned components, with delays
// distinct, tied by rounding, and unmeasured, and on the random instances of
// the property test, the galloping search removes exactly the links the
// binary search over full maximum flows removed.
func TestLargestRemovableMatchesBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	searched := 0
	// One check for every instance, of every size, as a solver's scratch
	// keeps it from one component to the next.
	check := new(feasibility)
	for trial := range 400 {
		nu, nv := 2+rng.IntN(40), 2+rng.IntN(40)
		round := []float64{0, 0.1, 0.5}[trial%3]
		p := zonedProblem(rng, nu, nv, 2+rng.IntN(4), round)
		ws := new(scratch)
		var sol Solution
		links := ws.buildLinks(p, &sol)
		slow := slowestFirst(links, ws.slowLinks(p, links, &sol))
		got := largestRemovable(check, p, links, slow)
		want := largestRemovableByBisection(p, links, slow)
		if got != want {
			t.Fatalf("trial %d (%d × %d, %d slow links): removes %d, the bisection %d", trial, nu, nv, len(slow), got, want)
		}
		if want < len(slow) {
			searched++
		}
	}
	if searched < 200 {
		t.Errorf("only %d of 400 instances had to keep slow links: the generator no longer tests the search", searched)
	}
}

// BenchmarkLargestRemovable times the search for the slow links a 100 × 100
// component spread over three zones can lose (the links between zones,
// each with its own delay, one in ten unmeasured), beside the binary search
// kept as its oracle.
func BenchmarkLargestRemovable(b *testing.B) {
	p := zonedProblem(rand.New(rand.NewPCG(1, 2)), 100, 100, 3, 0)
	ws := new(scratch)
	var sol Solution
	ls := ws.buildLinks(p, &sol)
	slow := slowestFirst(ls, ws.slowLinks(p, ls, &sol))
	for _, search := range []struct {
		name string
		run  func(Problem, *links, []int) int
	}{
		{"galloping", func(p Problem, ls *links, slow []int) int { return largestRemovable(&ws.check, p, ls, slow) }},
		{"bisection", largestRemovableByBisection},
	} {
		b.Run("solver="+search.name, func(b *testing.B) {
			for b.Loop() {
				if k := search.run(p, ls, slow); k == len(slow) {
					b.Fatal("every slow link removable: the benchmark no longer searches")
				}
			}
		})
	}
}

// TestSlowestFirstBreaksTiesInLinkOrder: slowest first, equal delays in
// link order, as a stable sort gives.
func TestSlowestFirstBreaksTiesInLinkOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 200 {
		ls := &links{delay: make([]float64, 50+rng.IntN(200))}
		var slow []int
		for k := range ls.delay {
			ls.delay[k] = float64(rng.IntN(6))
			if rng.IntN(3) > 0 {
				slow = append(slow, k)
			}
		}
		want := slices.Clone(slow)
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(ls.delay[b], ls.delay[a]) })
		if got := slowestFirst(ls, slow); !slices.Equal(got, want) {
			t.Fatalf("trial %d: %v, want %v", trial, got, want)
		}
	}
}

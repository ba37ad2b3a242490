package ntam

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/flow"
)

// keptUpToByBisection is the search keptUpTo replaced, kept as its
// oracle: the slow links sorted slowest first (ties in link order), then a
// binary search over how many of them can go, each check a maximum flow
// from nothing on a network without the removed links. It returns the
// delay of the fastest slow link left, −Inf when all can go.
func keptUpToByBisection(p Problem, links *links, slow []int) float64 {
	slowest := slices.Clone(slow)
	slices.SortStableFunc(slowest, func(a, b int) int { return cmp.Compare(links.delay[b], links.delay[a]) })
	check := new(feasibility)
	feasibleWithout := func(k int) bool {
		newFeasibility(check, p, links, slowest[:k])
		return check.g.MaxFlow(check.s, check.t) >= check.supplyFlow-tolerance
	}
	cuts := []int{0}
	for k := 1; k <= len(slowest); k++ {
		if k == len(slowest) || links.delay[slowest[k]] != links.delay[slowest[k-1]] {
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
	if cuts[lo] == len(slowest) {
		return math.Inf(-1)
	}
	return links.delay[slowest[cuts[lo]]]
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

// TestKeptUpToMatchesBisection: on zoned components, with delays
// distinct, tied by rounding, and unmeasured, the search that adds slow
// links from the fastest keeps exactly the links the binary search over
// full maximum flows kept.
func TestKeptUpToMatchesBisection(t *testing.T) {
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
		slow := ws.slowLinks(p, links, &sol)
		got := keptUpTo(check, p, links, slow)
		want := keptUpToByBisection(p, links, slow)
		if got != want {
			t.Fatalf("trial %d (%d × %d, %d slow links): keeps slow links up to %v ms, the bisection up to %v ms", trial, nu, nv, len(slow), got, want)
		}
		if !math.IsInf(want, -1) {
			searched++
		}
	}
	if searched < 200 {
		t.Errorf("only %d of 400 instances had to keep slow links: the generator no longer tests the search", searched)
	}
}

// BenchmarkLargestRemovable times the search for the slow links a 100 × 100
// component spread over three zones must keep (the links between zones,
// each with its own delay, one in ten unmeasured), beside the binary search
// kept as its oracle.
func BenchmarkLargestRemovable(b *testing.B) {
	p := zonedProblem(rand.New(rand.NewPCG(1, 2)), 100, 100, 3, 0)
	ws := new(scratch)
	var sol Solution
	ls := ws.buildLinks(p, &sol)
	slow := ws.slowLinks(p, ls, &sol)
	for _, search := range []struct {
		name string
		run  func(Problem, *links, []int) float64
	}{
		{"adding", func(p Problem, ls *links, slow []int) float64 { return keptUpTo(&ws.check, p, ls, slow) }},
		{"bisection", keptUpToByBisection},
	} {
		b.Run("solver="+search.name, func(b *testing.B) {
			for b.Loop() {
				if math.IsInf(search.run(p, ls, slow), -1) {
					b.Fatal("every slow link removable: the benchmark no longer searches")
				}
			}
		})
	}
}

// TestUnbalancedWithoutOnlyWhenRoutingFails: when unbalancedWithout says
// the links left cannot carry the traffic, routing over them fails; in
// zoned components it says so whenever that routing fails, so no zoned
// solve routes in vain.
func TestUnbalancedWithoutOnlyWhenRoutingFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 4))
	check := new(feasibility)
	said := 0
	for trial := range 300 {
		nu, nv := 2+rng.IntN(30), 2+rng.IntN(30)
		var p Problem
		zoned := trial%2 == 0
		if zoned {
			p = zonedProblem(rng, nu, nv, 2+rng.IntN(3), 0)
		} else {
			p = randomProblem(rng, nu, nv)
		}
		ws := new(scratch)
		var sol Solution
		links := ws.buildLinks(p, &sol)
		dropped := ws.dropMask(len(links.delay), ws.slowLinks(p, links, &sol))
		unbalanced := check.unbalancedWithout(p, links, dropped)
		err := ws.route(p, links, dropped, &sol)
		fails := errors.Is(err, flow.ErrInfeasible)
		if err != nil && !fails {
			t.Fatal(err)
		}
		if unbalanced && !fails {
			t.Fatalf("trial %d (%d × %d): said unbalanced, yet routing without the slow links succeeded", trial, nu, nv)
		}
		if zoned && fails && !unbalanced {
			t.Fatalf("trial %d (%d × %d zoned): routing without the slow links failed, unbalancedWithout did not say so", trial, nu, nv)
		}
		if unbalanced {
			said++
		}
	}
	if said < 100 {
		t.Errorf("unbalanced in only %d of 300 trials: the generator no longer tests it", said)
	}
}

// randomProblem is a component whose slow links are scattered: one link in
// three 20–50 ms, the rest 0.2–2 ms, so in small components the fast links
// sometimes leave a node cut off.
func randomProblem(rng *rand.Rand, nu, nv int) Problem {
	sup, dem := make([]traffic.Amount, nu), make([]traffic.Amount, nv)
	for i := range sup {
		sup[i] = traffic.Amount{Node: fmt.Sprintf("n%03d", i), Value: rng.Float64() + 0.01}
	}
	for j := range dem {
		dem[j] = traffic.Amount{Node: fmt.Sprintf("n%03d", j+nu/2), Value: rng.Float64() + 0.01}
	}
	sup, dem = traffic.Normalize(sup), traffic.Normalize(dem)
	delays := make([]float64, nu*nv)
	for k := range delays {
		delays[k] = 0.2 + 1.8*rng.Float64()
		if rng.IntN(3) == 0 {
			delays[k] = 20 + 30*rng.Float64()
		}
	}
	return Problem{Supplies: sup, Demands: dem, Delays: delays}
}

// TestPopFastestTakesEachDelayWhole: popping a heap of links with few or
// many ties gives each delay's links together, every one of them, in
// increasing delay, whether the group is popped or filtered out.
func TestPopFastestTakesEachDelayWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial := range 300 {
		n := 1 + rng.IntN(300)
		ls := &links{delay: make([]float64, n)}
		distinct := 1 + rng.IntN(n)
		for k := range ls.delay {
			ls.delay[k] = float64(rng.IntN(distinct))
		}
		h := slowLinkHeap{links: ls}
		for k := range n {
			h.heap = append(h.heap, k)
		}
		rng.Shuffle(n, func(a, b int) { h.heap[a], h.heap[b] = h.heap[b], h.heap[a] })
		h.init()
		seen := make([]bool, n)
		last := math.Inf(-1)
		for len(h.heap) > 0 {
			group := h.popFastest(nil)
			d := ls.delay[group[0]]
			if d <= last {
				t.Fatalf("trial %d: delay %v after %v", trial, d, last)
			}
			for _, k := range group {
				if ls.delay[k] != d || seen[k] {
					t.Fatalf("trial %d: link %d (%v ms) in the group of %v ms, or twice", trial, k, ls.delay[k], d)
				}
				seen[k] = true
			}
			for _, k := range h.heap {
				if ls.delay[k] == d {
					t.Fatalf("trial %d: link %d of %v ms left behind", trial, k, d)
				}
			}
			last = d
		}
		if i := slices.Index(seen, false); i >= 0 {
			t.Fatalf("trial %d: link %d never popped", trial, i)
		}
	}
}

// FuzzKeptUpTo: on components drawn from the fuzzer's parameters (sizes,
// zones, how coarsely delays are rounded, and scattered slow links instead
// of zones), the search keeps the slow links the binary-search oracle
// keeps, unbalancedWithout speaks only when routing without the slow links
// fails, and Solve delivers every share.
func FuzzKeptUpTo(f *testing.F) {
	f.Add(uint64(1), uint8(10), uint8(12), uint8(1), uint8(0))
	f.Add(uint64(2), uint8(29), uint8(3), uint8(2), uint8(2))
	f.Add(uint64(3), uint8(5), uint8(25), uint8(0), uint8(3))
	f.Add(uint64(4), uint8(17), uint8(17), uint8(4), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, nu, nv, zones, round uint8) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n, m := 2+int(nu%30), 2+int(nv%30)
		var p Problem
		if zones%5 == 4 {
			p = randomProblem(rng, n, m)
		} else {
			p = zonedProblem(rng, n, m, 2+int(zones%5), []float64{0, 0.1, 0.5, 1}[round%4])
		}
		ws := new(scratch)
		var sol Solution
		links := ws.buildLinks(p, &sol)
		slow := ws.slowLinks(p, links, &sol)
		if got, want := keptUpTo(&ws.check, p, links, slow), keptUpToByBisection(p, links, slow); got != want {
			t.Fatalf("%d × %d, %d slow links: keeps slow links up to %v ms, the bisection up to %v ms", n, m, len(slow), got, want)
		}
		dropped := ws.dropMask(len(links.delay), slow)
		if ws.check.unbalancedWithout(p, links, dropped) {
			if err := ws.route(p, links, dropped, &sol); !errors.Is(err, flow.ErrInfeasible) {
				t.Fatalf("%d × %d: said unbalanced, yet routing without the slow links gave %v", n, m, err)
			}
		}
		solved, err := Solve(DefaultConfig(), p)
		if err != nil {
			t.Fatal(err)
		}
		received := make(map[string]float64)
		for _, src := range solved.Sources {
			for _, to := range src.To {
				received[to.Node] += src.Supply * to.Value
			}
		}
		for _, d := range p.Demands {
			if math.Abs(received[d.Node]-d.Value) > 1e-6 {
				t.Fatalf("%d × %d: %s receives %v, wants %v", n, m, d.Node, received[d.Node], d.Value)
			}
		}
	})
}

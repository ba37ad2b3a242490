package ntam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

func TestSplitTwoMeans(t *testing.T) {
	cases := []struct {
		name   string
		values []float64
		cut    float64
		ok     bool
	}{
		{"two clear clusters", []float64{1, 2, 1.5, 40, 42}, 40, true},
		// {0} vs {80,80,100}: SSE 266.7 beats {0,80} vs {80,100}: 3400.
		{"paper example", []float64{80, 100, 0, 80}, 80, true},
		{"one outlier is its own cluster", []float64{5, 5, 5, 5, 50}, 50, true},
		{"all equal do not split", []float64{3, 3, 3}, 0, false},
		{"one value does not split", []float64{3}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cut, ok := splitTwoMeans(tc.values)
			if ok != tc.ok || cut != tc.cut {
				t.Errorf("splitTwoMeans(%v) = %v, %v; want %v, %v", tc.values, cut, ok, tc.cut, tc.ok)
			}
		})
	}
}

// delays builds a Delay function from a table.
func delays(m map[[2]string]float64) func(string, string) (float64, bool) {
	return func(a, b string) (float64, bool) {
		d, ok := m[[2]string{a, b}]
		return d, ok
	}
}

// ByName makes a Problem's Delays from a delay lookup by node names (the
// allocators use traffic.Index.DelayMatrix).
func ByName(supplies, demands []traffic.Amount, delay func(from, to string) (float64, bool)) []float64 {
	out := make([]float64, 0, len(supplies)*len(demands))
	for _, s := range supplies {
		for _, d := range demands {
			ms, ok := delay(s.Node, d.Node)
			if !ok {
				ms = math.NaN()
			}
			out = append(out, ms)
		}
	}
	return out
}

func amounts(kv ...any) []traffic.Amount {
	var out []traffic.Amount
	for i := 0; i < len(kv); i += 2 {
		out = append(out, traffic.Amount{Node: kv[i].(string), Value: kv[i+1].(float64)})
	}
	return out
}

// criticalPath is the largest delay of a link carrying traffic.
func criticalPath(sol Solution, d func(string, string) (float64, bool)) float64 {
	worst := 0.0
	for _, s := range sol.Sources {
		for _, to := range s.To {
			ms, _ := d(s.Node, to.Node)
			worst = math.Max(worst, ms)
		}
	}
	return worst
}

// The HEART paper's observation: min-cost flow alone keeps a slow link
// (here A→Y, 100 ms) because it lowers the sum; dropping it first shortens
// the critical path to 80 ms. Removing the next slow link (A→X) would strand
// A's traffic, so it is refused and the last feasible set is kept.
func TestSlowLinkDroppedAndStrandingRefused(t *testing.T) {
	d := delays(map[[2]string]float64{
		{"A", "X"}: 80, {"A", "Y"}: 100,
		{"B", "X"}: 0, {"B", "Y"}: 80,
	})
	sup, dem := amounts("A", 0.5, "B", 0.5), amounts("X", 0.5, "Y", 0.5)
	p := Problem{Supplies: sup, Demands: dem, Delays: ByName(sup, dem, d)}

	noFilter := DefaultConfig()
	noFilter.DisableFilter = true
	plain, err := Solve(noFilter, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := criticalPath(plain, d); got != 100 {
		t.Fatalf("without the filter the critical path is %v ms, want 100 (the example's premise)", got)
	}
	if math.Abs(plain.Cost-50) > 1e-9 {
		t.Errorf("min-cost without filter = %v, want 0.5·100 + 0.5·0 = 50", plain.Cost)
	}

	sol, err := Solve(DefaultConfig(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := criticalPath(sol, d); got != 80 {
		t.Errorf("critical path with the filter = %v ms, want 80", got)
	}
	if sol.SlowLinks != 3 || sol.RemovedLinks != 1 {
		t.Errorf("%d slow links, %d removed, want the three ≥ 80 ms slow and only A→Y removed", sol.SlowLinks, sol.RemovedLinks)
	}
	if sol.KeptSlowUpToMs != 80 {
		t.Errorf("slow links kept up to %v ms, want A→X and B→Y, 80 ms", sol.KeptSlowUpToMs)
	}
	if got := sol.Sources[0].To; len(got) != 1 || got[0].Node != "X" || got[0].Value != 1 {
		t.Errorf("A sends %v, want everything to X", got)
	}
}

func TestFewSlowLinksRemovedTogether(t *testing.T) {
	m := map[[2]string]float64{}
	nodes := []string{"n1", "n2", "n3", "n4", "n5"}
	for _, a := range nodes {
		for _, b := range nodes {
			if a != b {
				m[[2]string{a, b}] = 1 + float64(len(a)+len(b))*0.01
			}
		}
	}
	m[[2]string{"n1", "n5"}] = 30
	m[[2]string{"n2", "n5"}] = 31
	var sup, dem []traffic.Amount
	for _, n := range nodes {
		sup = append(sup, traffic.Amount{Node: n, Value: 0.2})
		dem = append(dem, traffic.Amount{Node: n, Value: 0.2})
	}
	sol, err := Solve(DefaultConfig(), Problem{Supplies: sup, Demands: dem, Delays: ByName(sup, dem, delays(m))})
	if err != nil {
		t.Fatal(err)
	}
	if sol.RemovedLinks != 2 || sol.KeptSlowUpToMs != 0 {
		t.Errorf("removed %d, kept slow links up to %v ms, want the two 30 ms links removed", sol.RemovedLinks, sol.KeptSlowUpToMs)
	}
	if sol.Cost > 1e-9 {
		t.Errorf("cost %v: equal supplies and demands on every node should stay local (0)", sol.Cost)
	}
}

func TestMissingDelaysCostTheWorstMeasured(t *testing.T) {
	d := delays(map[[2]string]float64{{"A", "X"}: 5})
	sup, dem := amounts("A", 1.0), amounts("X", 0.5, "Y", 0.5)
	sol, err := Solve(DefaultConfig(), Problem{Supplies: sup, Demands: dem, Delays: ByName(sup, dem, d)})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sol.Cost-5) > 1e-9 {
		t.Errorf("cost %v, want 0.5·5 + 0.5·5 (unmeasured A→Y costs the worst measured, 5)", sol.Cost)
	}
	if len(sol.Notes) == 0 {
		t.Error("no note about the estimated link")
	}
}

func TestSolveRejectsBadAmounts(t *testing.T) {
	d := delays(nil)
	cases := []struct {
		name string
		p    Problem
	}{
		{"empty supplies", Problem{Demands: amounts("X", 1.0), Delays: ByName(nil, amounts("X", 1.0), d)}},
		{"NaN demand", Problem{Supplies: amounts("A", 1.0), Demands: amounts("X", math.NaN()), Delays: ByName(amounts("A", 1.0), amounts("X", math.NaN()), d)}},
		{"not summing to 1", Problem{Supplies: amounts("A", 0.5), Demands: amounts("X", 1.0), Delays: ByName(amounts("A", 0.5), amounts("X", 1.0), d)}},
	}
	for _, tc := range cases {
		if _, err := Solve(DefaultConfig(), tc.p); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	// Delays for another shape of problem: the error names the field.
	_, err := Solve(DefaultConfig(), Problem{Supplies: amounts("A", 1.0), Demands: amounts("X", 0.5, "Y", 0.5), Delays: []float64{1}})
	if err == nil || !strings.Contains(err.Error(), "delays") || !strings.Contains(err.Error(), "1 × 2") {
		t.Errorf("one delay for 1 × 2 links: error %v, want one naming delays and the shape", err)
	}
}

// Properties on random instances: every supply sent, every demand met,
// fractions of each source sum to 1, nothing negative, and the filter never
// raises the critical path.
func TestSolveProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	for trial := range 300 {
		nu, nv := 1+rng.IntN(6), 1+rng.IntN(6)
		nodes := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
		m := map[[2]string]float64{}
		for _, x := range nodes {
			for _, y := range nodes {
				if x != y && rng.Float64() < 0.9 {
					m[[2]string{x, y}] = math.Round(rng.ExpFloat64()*2000) / 100
				}
			}
		}
		sup := randomAmounts(rng, nodes, nu)
		dem := randomAmounts(rng, nodes, nv)
		p := Problem{Supplies: sup, Demands: dem, Delays: ByName(sup, dem, delays(m))}
		sol, err := Solve(DefaultConfig(), p)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		received := map[string]float64{}
		for _, s := range sol.Sources {
			sum := 0.0
			for _, to := range s.To {
				if to.Value < 0 {
					t.Fatalf("trial %d: negative fraction %v", trial, to)
				}
				sum += to.Value
				received[to.Node] += s.Supply * to.Value
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("trial %d: source %s fractions sum to %v", trial, s.Node, sum)
			}
		}
		for _, d := range dem {
			if math.Abs(received[d.Node]-d.Value) > 1e-9 {
				t.Fatalf("trial %d: group %s receives %v, wants %v", trial, d.Node, received[d.Node], d.Value)
			}
		}
		again, _ := Solve(DefaultConfig(), p)
		if again.Cost != sol.Cost || again.RemovedLinks != sol.RemovedLinks || again.KeptSlowUpToMs != sol.KeptSlowUpToMs {
			t.Fatalf("trial %d: not deterministic", trial)
		}
	}
}

func randomAmounts(rng *rand.Rand, nodes []string, n int) []traffic.Amount {
	perm := rng.Perm(len(nodes))[:n]
	var as []traffic.Amount
	sum := 0.0
	for _, i := range perm {
		v := 0.05 + rng.Float64()
		as = append(as, traffic.Amount{Node: nodes[i], Value: v})
		sum += v
	}
	for i := range as {
		as[i].Value /= sum
	}
	return as
}

// BenchmarkSolve times NTAM on one large component, 100 upstream and 100
// downstream nodes: with one link in ten slow at random (removing them all
// leaves the traffic deliverable), and spread over three zones whose links
// between them are slow (some of those must stay, and the filter searches
// for them), each with its own delay (zones) or with delays rounded to
// 0.5 ms, so that they stay or go in groups of hundreds (zones-tied, as
// when probes measure few node pairs between zones and the rest cost the
// worst measured delay).
func BenchmarkSolve(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 100
	sup, dem := make([]traffic.Amount, n), make([]traffic.Amount, n)
	for i := range n {
		sup[i] = traffic.Amount{Node: fmt.Sprintf("u%d", i), Value: 1 / float64(n)}
		dem[i] = traffic.Amount{Node: fmt.Sprintf("u%d", (i+n/2)%(2*n)), Value: 0.5 + rng.Float64()}
	}
	dem = traffic.Normalize(dem)
	delay := make([][]float64, n)
	for i := range delay {
		delay[i] = make([]float64, n)
		for j := range delay[i] {
			delay[i][j] = 0.2 + 1.8*rng.Float64()
			if rng.IntN(10) == 0 {
				delay[i][j] = 20 + 30*rng.Float64()
			}
		}
	}
	var delays []float64
	for _, row := range delay {
		delays = append(delays, row...)
	}
	for _, c := range []struct {
		topology string
		p        Problem
	}{
		{"random", Problem{Supplies: sup, Demands: dem, Delays: delays}},
		{"zones", zonedProblem(rand.New(rand.NewPCG(1, 2)), n, n, 3, 0)},
		{"zones-tied", zonedProblem(rand.New(rand.NewPCG(1, 2)), n, n, 3, 0.5)},
	} {
		p := c.p
		for _, filter := range []bool{true, false} {
			b.Run(fmt.Sprintf("topology=%s/filter=%v", c.topology, filter), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.DisableFilter = !filter
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Solve(cfg, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// withinSS is the two clusters' sum of squares when values ≥ cut are high.
func withinSS(values []float64, cut float64) float64 {
	var lo, hi []float64
	for _, x := range values {
		if x >= cut {
			hi = append(hi, x)
		} else {
			lo = append(lo, x)
		}
	}
	ss := func(xs []float64) float64 {
		m := 0.0
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		s := 0.0
		for _, x := range xs {
			s += (x - m) * (x - m)
		}
		return s
	}
	return ss(lo) + ss(hi)
}

// The bucketed two-means must find the sorted search's optimum on inputs
// of every shape: the same cut, or (on a near tie that rounding can tip) a
// cut whose sum of squares is as low.
func TestBucketedTwoMeansIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	shapes := []struct {
		name string
		draw func() float64
	}{
		{"delays", func() float64 {
			if rng.IntN(10) == 0 {
				return 20 + 30*rng.Float64()
			}
			return 0.2 + 1.8*rng.Float64()
		}},
		{"uniform", func() float64 { return rng.Float64() * 100 }},
		{"exponential", func() float64 { return rng.ExpFloat64() }},
		{"few values", func() float64 { return float64(rng.IntN(5)) }},
		{"outlier", func() float64 {
			if rng.IntN(2000) == 0 {
				return 1e6
			}
			return rng.Float64()
		}},
		{"three modes", func() float64 { return float64(rng.IntN(3))*10 + rng.NormFloat64() }},
		// Too narrow a range for a bucket width (it rounds to 0) and too
		// wide a one (it overflows): both must fall back to sorting.
		{"subnormal", func() float64 { return float64(rng.IntN(3)) * math.SmallestNonzeroFloat64 }},
		{"full range", func() float64 { return (2*rng.Float64() - 1) * math.MaxFloat64 }},
	}
	for _, shape := range shapes {
		name, draw := shape.name, shape.draw
		for trial := range 40 {
			values := make([]float64, bucketedAbove+1+rng.IntN(5000))
			for i := range values {
				values[i] = draw()
			}
			want, wantOK := sortedTwoMeans(values)
			got, gotOK := splitTwoMeans(values)
			if gotOK != wantOK {
				t.Fatalf("%s trial %d: ok %v, sorted search says %v", name, trial, gotOK, wantOK)
			}
			if !gotOK || got == want {
				continue
			}
			if g, w := withinSS(values, got), withinSS(values, want); g > w*(1+1e-9) {
				t.Fatalf("%s trial %d: cut %v (sum of squares %v), sorted search %v (%v)", name, trial, got, g, want, w)
			}
		}
	}
}

func BenchmarkSplitTwoMeans(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 7))
	values := make([]float64, 9900)
	for i := range values {
		values[i] = 0.2 + 1.8*rng.Float64()
		if rng.IntN(10) == 0 {
			values[i] = 20 + 30*rng.Float64()
		}
	}
	b.Run("bucketed", func(b *testing.B) {
		for b.Loop() {
			splitTwoMeans(values)
		}
	})
	b.Run("sorted", func(b *testing.B) {
		for b.Loop() {
			sortedTwoMeans(values)
		}
	})
}

// Links of equal delay leave together or not at all. A and B each reach X
// and Y; A→Y and B→X are slow at the same 90 ms. Removing both strands B's
// traffic; removing A→Y alone (the first in list order) would be feasible,
// but nothing makes it slower than B→X, so both stay.
func TestEqualDelaysAreRemovedTogetherOrNotAtAll(t *testing.T) {
	d := delays(map[[2]string]float64{
		{"A", "X"}: 1, {"A", "Y"}: 90,
		{"B", "X"}: 90, {"B", "Y"}: 1.2,
	})
	sup, dem := amounts("A", 0.3, "B", 0.7), amounts("X", 0.5, "Y", 0.5)
	sol, err := Solve(DefaultConfig(), Problem{Supplies: sup, Demands: dem, Delays: ByName(sup, dem, d)})
	if err != nil {
		t.Fatal(err)
	}
	if sol.SlowLinks != 2 || sol.RemovedLinks != 0 || sol.KeptSlowUpToMs != 90 {
		t.Errorf("%d slow, %d removed, kept up to %v ms: want both 90 ms links slow and kept", sol.SlowLinks, sol.RemovedLinks, sol.KeptSlowUpToMs)
	}
}

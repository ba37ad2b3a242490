package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/outcome"
)

func results() []*outcome.Result {
	return []*outcome.Result{
		{Scenario: "s", Run: "heart", Seed: 3, Requests: 100, Succeeded: 98, Timeouts: 2, SuccessRate: 0.98,
			MeanMs: 12.5, P50Ms: 10, P90Ms: 20, P99Ms: 40, P999Ms: 50, LatenciesMs: []float64{5, 10, 20, 40, 50},
			UtilMean: 0.5, UtilGap: 0.1, UtilRatio: 1.08, ReplicaSeconds: 600, Pods: []outcome.PodResult{{Name: "a-0", Utilization: 0.5}},
			Series: []outcome.Point{{T: 15, Rate: 10, P99Ms: 40, Replicas: map[string]int{"a": 2}}}},
		{Scenario: "s", Run: "random", Seed: 3, Requests: 100, Timeouts: 100, MeanMs: math.NaN(), P50Ms: math.NaN(),
			P90Ms: math.NaN(), P99Ms: math.NaN(), P999Ms: math.NaN(), UtilMean: 0.9, UtilMin: math.NaN(),
			Series: []outcome.Point{{T: 15, Rate: 10, P99Ms: math.NaN(), Replicas: map[string]int{"a": 2}}}},
	}
}

func TestMarkdownAndCSV(t *testing.T) {
	var md bytes.Buffer
	if err := Markdown(&md, "s (seed 3)", results()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| heart | 100 | 98.0% | 2 | 0 | 12.5 | 10.0 | 20.0 | 40.0 | 50.0 | 50.0% | 10.0% | 1.08 | 600 | 0 |", "| random | 100 | 0.0% | 100 | 0 | – |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var c bytes.Buffer
	if err := CSV(&c, results()); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(c.String(), "\n"); lines != 3 {
		t.Errorf("CSV has %d lines, want a header and two rows", lines)
	}
}

func TestJSONHasNoNaN(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, results()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	runs := doc["runs"].([]any)
	random := runs[1].(map[string]any)
	if random["p99Ms"] != nil || random["requests"].(float64) != 100 {
		t.Errorf("random run %v: want p99Ms null and requests 100", random)
	}
}

func TestPlotsWritePNGs(t *testing.T) {
	dir := t.TempDir()
	paths, err := Plots(dir, "s", results())
	if err != nil {
		t.Fatal(err)
	}
	// Routing runs only: the routing group's three figures, no cost plots.
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	if want := []string{"latency-ccdf-routing.png", "p99-over-time-routing.png", "balance-routing.png"}; !slices.Equal(names, want) {
		t.Fatalf("plots %v, want %v", names, want)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || len(data) < 5000 {
			t.Errorf("%s: not a plausible PNG (%d bytes, %v)", filepath.Base(p), len(data), err)
		}
	}
}

func sweepResults() []*outcome.Result {
	pt := func(run string, cost, p99 float64, timeouts int64) *outcome.Result {
		return &outcome.Result{Run: run, Frontier: true, Autoscaling: "hpa-cpu", Sweep: "hpa-cpu", ReplicaSeconds: cost, P99Ms: p99, Timeouts: timeouts, SuccessRate: 1}
	}
	return []*outcome.Result{
		pt("hpa-90", 1000, 400, 50),
		pt("hpa-80", 1200, 450, 40), // worse and dearer than hpa-90: off the envelope
		pt("hpa-70", 1400, 200, 10),
		pt("hpa-50", 2000, 100, 0),
		{Run: "artt-hpa", Autoscaling: "artt", ReplicaSeconds: 1700, P99Ms: 120, SuccessRate: 1},
		{Run: "cheap", Autoscaling: "artt", ReplicaSeconds: 900, P99Ms: 120, SuccessRate: 1},
	}
}

// Outside the sweep's costs (1000 to 2000), a run is set against its best
// tail (100 ms, hpa-50's).
func TestDominanceOutsideTheSweepsCosts(t *testing.T) {
	f := NewFrontier(sweepResults())
	for _, c := range []struct {
		cost, p99 float64
		want      Dominance
		why       string
	}{
		{900, 90, Dominates, "cheaper than every point, shorter than the best"},
		{900, 120, Outside, "cheaper, but hpa-50's tail is shorter"},
		{2500, 100, Dominated, "dearer, and hpa-50's tail is as short"},
		{2500, 90, Outside, "dearer, with a shorter tail than any"},
		{1700, 500, Outside, "within the sweep's costs"},
	} {
		if got := f.Dominance(c.cost, c.p99); got != c.want {
			t.Errorf("%s: Dominance(%v, %v) = %v, want %v", c.why, c.cost, c.p99, got, c.want)
		}
	}
}

func TestFrontierInterpolatesOnTheLowerEnvelope(t *testing.T) {
	f := NewFrontier(sweepResults())
	cases := []struct {
		cost, want float64
		ok         bool
		why        string
	}{
		{1000, 400, true, "a sweep point"},
		{1200, 300, true, "hpa-80 is dominated: halfway between hpa-90 and hpa-70"},
		{1700, 150, true, "halfway between hpa-70 and hpa-50"},
		{2000, 100, true, "the dearest point"},
		{900, math.NaN(), false, "cheaper than the whole sweep"},
		{2100, math.NaN(), false, "dearer than the whole sweep"},
	}
	for _, c := range cases {
		got, ok := f.At(c.cost, P99)
		if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-9) {
			t.Errorf("%s: At(%v) = %v, %v; want %v, %v", c.why, c.cost, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		p99, want float64
		ok        bool
		why       string
	}{
		{400, 1000, true, "the cheapest point"},
		{300, 1200, true, "halfway between hpa-90 and hpa-70 (hpa-80 dominated)"},
		{100, 2000, true, "the dearest point"},
		{450, math.NaN(), false, "worse than the cheapest point"},
		{90, math.NaN(), false, "better than the whole sweep"},
	} {
		got, ok := f.CostAt(c.p99)
		if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-9) {
			t.Errorf("%s: CostAt(%v) = %v, %v; want %v, %v", c.why, c.p99, got, ok, c.want, c.ok)
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, "s", sweepResults()); err != nil {
		t.Fatal(err)
	}
	// At equal tail: P99 120 lies 0.8 of the way from hpa-70 (200 ms at
	// 1400) to hpa-50 (100 ms at 2000), so the HPA pays 1880 for it.
	for _, want := range []string{"| artt-hpa | 1700 | 120 | 150 | 0.80 | – | 1880 | 0.90 | 0 | 5 |", "| cheap | 900 | 120 | – | outside the sweep's costs | – | 1880 | 0.48 | 0 | – |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("equal-cost table lacks %q:\n%s", want, md.String())
		}
	}
	// With a floor of 80 ms the excess is (120 − 80) ÷ (150 − 80) = 0.57 of
	// the frontier's at 1700 replica-seconds.
	withFloor := append(sweepResults(), &outcome.Result{Run: "floor", Autoscaling: "none", Floor: true, ReplicaSeconds: 5000, P99Ms: 80, SuccessRate: 1})
	if got := f.ExcessRatio(withFloor[4], FloorP99(withFloor)); math.Abs(got-40.0/70) > 1e-9 {
		t.Errorf("excess ratio %v, want 40/70", got)
	}
	md.Reset()
	if err := Markdown(&md, "s", withFloor); err != nil {
		t.Fatal(err)
	}
	if want := "| artt-hpa | 1700 | 120 | 150 | 0.80 | 0.57 | 1880 | 0.90 | 0 | 5 |"; !strings.Contains(md.String(), want) || !strings.Contains(md.String(), "Floor: P99 80.0 ms") {
		t.Errorf("with a floor, the table lacks %q or the floor line:\n%s", want, md.String())
	}
	paths, err := Plots(t.TempDir(), "s", sweepResults())
	if err != nil || len(paths) != 5 {
		t.Errorf("plots %v, %v; want five with cost-p99 (every run answered all: no success plot)", paths, err)
	}
	lossy := sweepResults()
	lossy[0].SuccessRate, lossy[0].Timeouts = 0.99, 10
	paths, err = Plots(t.TempDir(), "s", lossy)
	if err != nil || len(paths) != 6 {
		t.Errorf("plots %v, %v; want six with the two cost plots once a sweep run lost requests", paths, err)
	}
}

func TestSummaryGoesBetweenTheMarkers(t *testing.T) {
	var table bytes.Buffer
	// A run cheaper than the whole sweep with a shorter tail than its best
	// has no ratio, and the summary says it dominates.
	rs := append(sweepResults(), &outcome.Result{Run: "lean", Autoscaling: "artt", ReplicaSeconds: 900, P99Ms: 90, SuccessRate: 1})
	if err := Summary(&table, []string{"s"}, [][]*outcome.Result{rs}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "| s | artt-hpa | 120 | 100.0% | 0 | 0.0% | – | 0.80 |") || strings.Contains(table.String(), "hpa-90") ||
		!strings.Contains(table.String(), "| s | lean | 90.0 | 100.0% | 0 | 0.0% | – | dominates |") || !strings.Contains(table.String(), "| s | cheap | 120 | 100.0% | 0 | 0.0% | – | – |") {
		t.Errorf("summary:\n%s", table.String())
	}
	doc := "# R\n\nbefore\n" + SummaryBegin + "\nold table\n" + SummaryEnd + "\nafter\n"
	got, err := IntoMarkdown(doc, table.String())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "old table") || !strings.Contains(got, "before") || !strings.Contains(got, "after") || !strings.Contains(got, "| s | artt-hpa |") {
		t.Errorf("replaced document:\n%s", got)
	}
	if _, err := IntoMarkdown("no markers", "x"); err == nil {
		t.Error("no error without markers")
	}
}

// The gap to a limit, worked by hand: at 1700 replica-seconds the
// HPA frontier's P99 is 150 ms (halfway between hpa-70 and hpa-50); the
// oracle's, halfway between its 60 ms at 1400 and 40 ms at 2000, is 50 ms.
// Gap 100 ms; over a floor of 30 ms the HPA's excess is 120 ms, so the
// gap is 83% of it; artt-hpa's 120 ms closes 30 of the 100 ms.
func TestGapToTheOracleAtEqualCost(t *testing.T) {
	results := sweepResults()
	for _, o := range []struct {
		run       string
		cost, p99 float64
	}{{"oracle-70", 1400, 60}, {"oracle-50", 2000, 40}} {
		results = append(results, &outcome.Result{Run: o.run, Frontier: true, Autoscaling: "oracle", Sweep: "oracle", ReplicaSeconds: o.cost, P99Ms: o.p99, SuccessRate: 1})
	}
	results = append(results, &outcome.Result{Run: "floor", Floor: true, P99Ms: 30, SuccessRate: 1})
	judgedRun := results[4]
	gap := LimitGapOf(judgedRun, NewFrontier(results), NewSweep(results, "oracle"), FloorP99(results))
	if !gap.OK || math.Abs(gap.Ms-100) > 1e-9 || math.Abs(gap.Fraction-100.0/120) > 1e-9 || math.Abs(gap.Closed-0.3) > 1e-9 {
		t.Fatalf("gap %+v; want 100 ms, 83%% of the excess, 30%% closed", gap)
	}
	if gap.AtTheLimit() {
		t.Error("a gap of 83% of the excess is not at the limit")
	}
	if cheap := LimitGapOf(results[5], NewFrontier(results), NewSweep(results, "oracle"), 30); cheap.OK {
		t.Errorf("a run cheaper than both sweeps has no gap: %+v", cheap)
	}
	var md bytes.Buffer
	if err := Markdown(&md, "s", results); err != nil {
		t.Fatal(err)
	}
	if want := "| artt-hpa | 1700 | 120 | 150 | 50.0 | 100 ms (83.3%) | 30.0% |"; !strings.Contains(md.String(), want) {
		t.Errorf("report lacks the room row %q:\n%s", want, md.String())
	}
}

// The report answers first: the routing with the shortest tail among those
// that lost fewest, each autoscaler against the HPA frontier at its cost,
// and who lost least after each event.
func TestVerdictAnswersFirst(t *testing.T) {
	ev := func(lost int64) []outcome.EventImpact {
		return []outcome.EventImpact{{At: 240, Description: "node-quota w2 0.8 cores", Started: 100, Lost: lost}}
	}
	results := append(sweepResults(),
		&outcome.Result{Run: "least-request", Autoscaling: "none", P99Ms: 372, SuccessRate: 1, AfterEvents: ev(0)},
		&outcome.Result{Run: "artt", Autoscaling: "none", P99Ms: 145, SuccessRate: 1, AfterEvents: ev(0)},
		&outcome.Result{Run: "heart", Autoscaling: "none", P99Ms: 90, Timeouts: 40, SuccessRate: 0.9, AfterEvents: ev(30)},
		&outcome.Result{Run: "artt-hpa", Autoscaling: "artt", ReplicaSeconds: 1700, P99Ms: 120, SuccessRate: 1, AfterEvents: ev(5)})
	for _, r := range results[:len(results)-4] {
		r.AfterEvents = ev(1)
	}
	var b strings.Builder
	verdict(&b, results)
	for _, want := range []string{
		"the shortest P99 among the runs that lost fewest (0) is artt's, 145 ms (then least-request 372); requests lost: heart 40.",
		"artt-hpa 0.", "(lost 0, the frontier",
		"After node-quota w2 0.8 cores at 240 s: least-request, artt lost fewest (0 of the requests started in the minute after), heart most (30).",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the verdict does not say %q:\n%s", want, b.String())
		}
	}
}

// A success rate never reads 100% while a request failed.
func TestSuccessPercentIsNeverAFull100WithFailures(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{1, "100.0%"}, {0.98, "98.0%"}, {1 - 21.0/162476, "99.99%"}, {1 - 1e-7, "99.99999%"}} {
		if got := SuccessPercent(tc.v); got != tc.want {
			t.Errorf("SuccessPercent(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

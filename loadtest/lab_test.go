package loadtest

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/report"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/allocate"
	"github.com/artt-dev/artt/traffic/istio"
)

func mustLoad(t testing.TB, name string) Loaded {
	t.Helper()
	l, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func jsonReport(t *testing.T, results []*outcome.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.JSON(&b, results); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSameSeedSameReportDifferentSeedDifferentSamples(t *testing.T) {
	l := mustLoad(t, "demo")
	a, err := Run(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(l, Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(jsonReport(t, a), jsonReport(t, b)) {
		t.Error("the same scenario and seed gave different reports (parallel vs serial runs)")
	}
	seed := uint64(99)
	c, err := Run(l, Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Requests == c[0].Requests && a[0].P99Ms == c[0].P99Ms {
		t.Error("a different seed gave the same samples")
	}
	if c[0].Seed != 99 {
		t.Errorf("report seed %d, want 99", c[0].Seed)
	}
}

// The lab must drive the production allocator: freezing ATPM's EWMA
// through the allocator's own options (α fixed at 0.01, so HEART barely
// learns the slow node) must change what HEART does in the lab.
func TestLabDrivesTheRealAllocator(t *testing.T) {
	l := mustLoad(t, "demo")
	adaptive, err := Run(l, Options{Runs: []string{"heart"}})
	if err != nil {
		t.Fatal(err)
	}
	opts := allocate.DefaultOptions()
	opts.ATPM.AlphaMin, opts.ATPM.AlphaMax = 0.01, 0.01
	frozen, err := Run(l, Options{Runs: []string{"heart"}, Emulator: emulator.Options{Allocate: &opts}})
	if err != nil {
		t.Fatal(err)
	}
	if adaptive[0].UtilGap == frozen[0].UtilGap || adaptive[0].P99Ms == frozen[0].P99Ms {
		t.Errorf("HEART with its default EWMA and with α = 0.01 gave the same run (P99 %v, gap %v): the lab did not use the allocator's options",
			adaptive[0].P99Ms, adaptive[0].UtilGap)
	}
}

// The lab must drive artt-scaler's parser and Evaluate: a higher threshold
// in the trigger metadata must give fewer replica-seconds.
func TestLabDrivesTheRealScaler(t *testing.T) {
	base := mustLoad(t, "demo")
	lowSc := *base.Scenario
	lowSc.Control.ScalerMetadata = map[string]string{"minThreshold": "30", "maxThreshold": "40"}
	highSc := *base.Scenario
	highSc.Control.ScalerMetadata = map[string]string{"minThreshold": "85", "maxThreshold": "95"}
	run := []string{"artt+artt-hpa"}
	low, err := Run(Loaded{Scenario: &lowSc}, Options{Runs: run})
	if err != nil {
		t.Fatal(err)
	}
	high, err := Run(Loaded{Scenario: &highSc}, Options{Runs: run})
	if err != nil {
		t.Fatal(err)
	}
	if !(low[0].ReplicaSeconds > high[0].ReplicaSeconds) {
		t.Errorf("replica-seconds %v at thresholds 30–40%% not above %v at 85–95%%", low[0].ReplicaSeconds, high[0].ReplicaSeconds)
	}
	bad := *base.Scenario
	bad.Control.ScalerMetadata = map[string]string{"maxThreshold": "eighty"}
	if _, err := Run(Loaded{Scenario: &bad}, Options{Runs: run}); err == nil || !strings.Contains(err.Error(), `"maxThreshold"`) {
		t.Errorf("bad scaler metadata: error %v, want artt-scaler's own error naming maxThreshold", err)
	}
}

func TestBuiltinScenariosLoad(t *testing.T) {
	names := Builtin()
	if len(names) < 6 {
		t.Fatalf("only %d built-in scenarios: %v", len(names), names)
	}
	for _, name := range names {
		l := mustLoad(t, name)
		_, err := Rate(l, "")
		if name == "artt-hpa-nasdaq" {
			if err == nil || !strings.Contains(err.Error(), "--trace-dir") {
				t.Errorf("%s without a trace directory: error %v, want one pointing at --trace-dir", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRunFilterNamesTheRuns(t *testing.T) {
	_, err := Run(mustLoad(t, "demo"), Options{Runs: []string{"nope"}})
	if err == nil || !strings.Contains(err.Error(), "kubernetes") {
		t.Errorf("error %v, want one listing the scenario's runs", err)
	}
}

func TestNodeFailureIsSurvived(t *testing.T) {
	l := mustLoad(t, "demo")
	sc := *l.Scenario
	sc.Events = append(sc.Events[:0:0], sc.Events...)
	if err := yamlEvent(&sc, "node-failure", "slow", 200); err != nil {
		t.Fatal(err)
	}
	res, err := Run(Loaded{Scenario: &sc}, Options{Runs: []string{"artt", "kubernetes", "heart"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		last := r.Series[len(r.Series)-1]
		if !strings.Contains(r.Run, "hpa") && last.Replicas["backend"] != 3 {
			t.Errorf("%s: %d backend replicas at the end, want 3 (the failed one replaced)", r.Run, last.Replicas["backend"])
		}
		for _, p := range r.Pods {
			if p.Node == "slow" && p.Seconds > 200 {
				t.Errorf("%s: pod %s on the failed node lived %v s", r.Run, p.Name, p.Seconds)
			}
		}
		if math.IsNaN(r.P99Ms) || r.SuccessRate < 0.5 {
			t.Errorf("%s: success %v after a node failure", r.Run, r.SuccessRate)
		}
		// The minute after 200 s offers 180 requests per second.
		if ev := r.AfterEvents; len(ev) != 1 || math.Abs(float64(ev[0].Started)/10800-1) > 0.05 || ev[0].Lost > ev[0].Started {
			t.Errorf("%s: after-event measure %+v; want about 10800 started and no more lost", r.Run, r.AfterEvents)
		}
	}
}

// Every weight table a run installs is what artt-traffic would write and
// passes istiod's rules, through pod failures, a node failure and
// autoscaling.
func TestEveryInstalledWeightTableIsValidForIstio(t *testing.T) {
	l := mustLoad(t, "demo")
	sc := *l.Scenario
	sc.Events = append(sc.Events[:0:0], sc.Events...)
	if err := yamlEvent(&sc, "node-failure", "medium", 150); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tables := 0
	opts := Options{Runs: []string{"heart", "artt", "artt+artt-hpa"}}
	opts.Emulator.Weights = func(component string, ds []istio.Distribute) {
		mu.Lock()
		defer mu.Unlock()
		tables++
		if err := istio.Validate(ds); err != nil {
			t.Errorf("%s: installed weights %v are invalid for Istio: %v", component, ds, err)
		}
	}
	if _, err := Run(Loaded{Scenario: &sc}, opts); err != nil {
		t.Fatal(err)
	}
	if tables < 50 {
		t.Errorf("%d weight tables installed; want every allocation's", tables)
	}
}

// yamlEvent appends a node event at the given second and revalidates.
func yamlEvent(sc *scenario.Scenario, typ, node string, at int) error {
	sc.Events = append(sc.Events, scenario.Event{Type: typ, Node: node, At: scenario.Duration{Duration: time.Duration(at) * time.Second}})
	return sc.FillAndValidate()
}

// A node drops to a third of its speed at 240 s and recovers at 420 s. ARTT's
// fast path cuts its groups within two scrape intervals (15 s each) and
// restores them after the recovery.
func TestDegradedNodeIsCutAndRestored(t *testing.T) {
	type point struct {
		at            float64
		share, before float64
		health        string
	}
	var mu sync.Mutex
	var reviews []point
	opts := Options{Runs: []string{"artt"}}
	opts.Emulator.Allocated = func(at float64, a traffic.Allocation) {
		r, ok := a.Route("reviews")
		if !ok {
			return
		}
		for _, g := range r.Groups {
			if g.Node == "w2" {
				mu.Lock()
				reviews = append(reviews, point{at: at, share: g.Share, health: g.Health})
				mu.Unlock()
			}
		}
	}
	if _, err := Run(mustLoad(t, "node-degradation"), opts); err != nil {
		t.Fatal(err)
	}
	shareAt := func(t0 float64) point { // the last allocation at or before t0
		var p point
		for _, x := range reviews {
			if x.at <= t0 {
				p = x
			}
		}
		return p
	}
	before := shareAt(239)
	// Within two scrape intervals, and before the next 30 s cycle (270 s).
	cut := shareAt(240 + 2*15 - 1)
	if cut.health != "Degraded" || cut.share > before.share/2 {
		t.Errorf("29 s after w2 slowed to a third: reviews on w2 %s at share %.3f (was %.3f); want Degraded and at most half",
			cut.health, cut.share, before.share)
	}
	restored := shareAt(600)
	if restored.health != "Healthy" || restored.share < before.share/2 {
		t.Errorf("180 s after w2 recovered: reviews on w2 %s at share %.3f (was %.3f); want Healthy and climbing back",
			restored.health, restored.share, before.share)
	}
}

// gRPC's weighted round robin keeps its sequence across the weight updates
// (grpcwrr.go), so clients sending a few requests a second spread them
// over pods of the same cost as the live loop's gRPC does: at each of
// three seeds, every component of live-lata-chain-16's cswrr run keeps its
// pods' utilisations within 4 points (live: 1.1). A schedule started
// afresh every second gave its first picks to the same pods and starved
// others, 10–14 points apart.
func TestGRPCWeightedRoundRobinSpreadsFewPicks(t *testing.T) {
	l := mustLoad(t, "live-lata-chain-16")
	for seed := uint64(1); seed <= 3; seed++ {
		results, err := Run(l, Options{Runs: []string{"cswrr"}, Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		if gap := results[0].UtilGap; gap > 0.04 {
			t.Errorf("seed %d: a component's pods are %.1f points of utilisation apart under gRPC's weighted round robin", seed, 100*gap)
		}
	}
}

package emulator

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// servers is n identical single-worker FCFS pods with exponential service
// (mean 1 ms) behind one client (one ingress gateway replica) with no
// network delay: the supermarket model's setting.
func servers(n int, load float64, requests int, routing string) *scenario.Scenario {
	return stations{n: n, workers: 1, gateways: 1, limit: 1, lambda: load * float64(n) * 1000, mu: 1000,
		requests: requests, routing: routing, seed: 11, warmup: 0.05}.scenario()
}

// TestLeastRequestMatchesSupermarketModel checks Envoy's least-request
// (two random choices, this client's own in-flight counts) against
// Mitzenmacher's supermarket model: with n → ∞ servers at load λ, the
// fraction of servers holding at least i requests is λ^(2^i − 1), and the
// mean sojourn is Σ_{i≥1} λ^(2^i − 2) service times, against 1/(1 − λ) for
// random routing (M/M/1).
//
// Tolerance: n = 100 is finite, and finite systems sit slightly above the
// limit (a server's queue is correlated with its peers'); the known
// correction is O(1/n) and grows down the tail, where the fractions are
// small. With a million arrivals, each observing 100 servers, sampling
// error is far below that. We allow the larger of 0.02 absolute (2/n) and
// 10% relative on each fraction, and 5% on the sojourn ratio. Random
// routing would give λ^i (0.66 at i = 4) and fail by far.
func TestLeastRequestMatchesSupermarketModel(t *testing.T) {
	const n, load, requests = 100, 0.9, 1_000_000
	sc := servers(n, load, requests, "least-request")
	e, err := New(sc, sc.Runs[0], workload.Constant(sc.Workload.Rate), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var atLeast [5]float64
	var looks float64
	e.beforeArrival = func() {
		if e.now < e.warmup {
			return
		}
		looks++
		for _, p := range e.comps[0].ready {
			q := p.inService.Len() + len(p.waiting)
			for i := 1; i <= min(q, 4); i++ {
				atLeast[i]++
			}
		}
	}
	lr, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		got := atLeast[i] / (looks * n)
		want := math.Pow(load, math.Pow(2, float64(i))-1)
		t.Logf("servers with ≥ %d requests: %.4f, supermarket model %.4f", i, got, want)
		if tol := math.Max(0.02, 0.1*want); math.Abs(got-want) > tol {
			t.Errorf("fraction with ≥ %d: %.4f, model %.4f (tolerance %.3f)", i, got, want, tol)
		}
	}

	random := runQueue(t, servers(n, load, requests, "random"))
	modelLR := 0.0
	for i := 1; i < 20; i++ {
		modelLR += math.Pow(load, math.Pow(2, float64(i))-2)
	}
	modelRatio := (1 / (1 - load)) / modelLR
	gotRatio := random.MeanMs / lr.MeanMs
	t.Logf("mean sojourn: random %.3f ms, least-request %.3f ms (model %.3f ms); ratio %.3f, model %.3f",
		random.MeanMs, lr.MeanMs, modelLR, gotRatio, modelRatio)
	if math.Abs(gotRatio/modelRatio-1) > 0.05 {
		t.Errorf("random ÷ least-request mean sojourn %.3f, model %.3f (tolerance 5%%)", gotRatio, modelRatio)
	}
}

// TestEachSidecarFollowsItsOwnView: two callers hold different in-flight
// counts for the same hosts, and each one's least-request choice follows
// its own counts, not the pods' totals.
func TestEachSidecarFollowsItsOwnView(t *testing.T) {
	sc := servers(2, 0.1, 10, "least-request")
	e, err := New(sc, sc.Runs[0], workload.Constant(1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := e.comps[0]
	a, b := c.ready[0], c.ready[1]
	one, two := &sidecar{node: e.nodes[0]}, &sidecar{node: e.nodes[0]}
	// Caller one has 3 requests in flight to a; caller two has 3 to b. The
	// pods' global counts are equal (3 each).
	for range 3 {
		e.cluster(one, c).sent(a)
		e.cluster(two, c).sent(b)
	}
	picks := map[string]map[*replica]int{"one": {}, "two": {}}
	for range 400 {
		picks["one"][e.pick(one, c)]++
		picks["two"][e.pick(two, c)]++
	}
	// With two draws and repeats allowed, the less loaded host wins unless
	// both draws hit the busier one: probability 1/4.
	for name, want := range map[string]*replica{"one": b, "two": a} {
		frac := float64(picks[name][want]) / 400
		if frac < 0.68 || frac > 0.82 {
			t.Errorf("caller %s sent %.2f of its picks to the host it has fewer requests at; want about 0.75", name, frac)
		}
	}
}

// TestEDFScheduleIsSmooth: Envoy's locality schedule gives each locality
// its weighted share within one pick over any prefix.
func TestEDFScheduleIsSmooth(t *testing.T) {
	var s edfSchedule
	weights := map[int]float64{0: 50, 1: 30, 2: 20}
	for n := range 3 {
		s.add(n, weights[n])
	}
	count := map[int]int{}
	for k := 1; k <= 1000; k++ {
		count[s.pick()]++
		for n, w := range weights {
			if d := float64(count[n]) - float64(k)*w/100; math.Abs(d) > 1.0001 {
				t.Fatalf("after %d picks locality %d has %d, share %.1f", k, n, count[n], float64(k)*w/100)
			}
		}
	}
}

// TestLocalityMissingFromToGetsNothing: Istio removes the endpoints of a
// locality that a `from` entry does not list, so callers on that node send
// it nothing even when it has ready pods, and a `to` with no ready pods
// fails the request rather than spilling over.
func TestLocalityMissingFromToGetsNothing(t *testing.T) {
	sc := threeNodes()
	e, err := New(sc, sc.Runs[0], workload.Constant(1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := e.byName["b"]
	from := e.nodes[0]
	c.weights = make([][]localityWeight, len(e.nodes))
	c.weights[from.idx] = []localityWeight{{node: 0, weight: 70}, {node: 1, weight: 30}}
	c.routingVersion++
	got := map[string]int{}
	g := &sidecar{node: from}
	for range 1000 {
		got[e.pick(g, c).node.name]++
	}
	if got["n3"] != 0 || got["n1"] != 700 || got["n2"] != 300 {
		t.Errorf("picks by node %v: want n1 700, n2 300 (EDF is exact over 1000 picks), n3 none", got)
	}
	// n1 and n2 lose their pods: n3 still gets nothing, the request fails.
	for _, p := range c.pods {
		if p.node.name != "n3" {
			p.state = terminating
		}
	}
	c.rebuildEndpoints()
	if p := e.pick(g, c); p != nil {
		t.Errorf("picked %s on %s; want none (n3 is not in `to`)", p.name, p.node.name)
	}
	// A caller on a node with no `from` entry balances over every endpoint.
	if p := e.pick(&sidecar{node: e.nodes[2]}, c); p == nil || p.node.name != "n3" {
		t.Errorf("caller without a `from` entry picked %v; want the ready pod on n3", p)
	}
}

// threeNodes is a → b with one b pod on each of n1..n3, routed by heart.
func threeNodes() *scenario.Scenario {
	sc := &scenario.Scenario{
		Name: "three", Duration: scenario.Duration{Duration: time.Minute}, Seed: 3,
		Cluster: scenario.Cluster{Nodes: []scenario.Node{{Name: "n1", Cores: 4}, {Name: "n2", Cores: 4}, {Name: "n3", Cores: 4}}},
		Application: scenario.Application{Components: []scenario.Component{
			{Name: "a", CPUPerRequest: scenario.Duration{Duration: time.Millisecond}, Replicas: 1, Placement: []string{"n1"}, Calls: []string{"b"}},
			{Name: "b", CPUPerRequest: scenario.Duration{Duration: time.Millisecond}, Replicas: 3, Placement: []string{"n1", "n2", "n3"}},
		}},
		Workload: scenario.Workload{Type: "constant", Rate: 10},
		Runs:     []scenario.Run{{Routing: "heart"}},
	}
	if err := sc.FillAndValidate(); err != nil {
		panic(fmt.Sprint(err))
	}
	return sc
}

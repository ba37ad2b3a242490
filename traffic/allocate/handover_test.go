package allocate

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/istio"
)

// callerCallee is component A calling B on nodes n0…n(nodes-1): callers A
// pods and podsPerNode B pods on each node, B serving rate requests per
// second at costMs CPU milliseconds per request (1-core limits), every
// node-to-node link delayMs one way.
func callerCallee(nodes, callers, podsPerNode int, rate, costMs, delayMs float64) traffic.Snapshot {
	s := traffic.Snapshot{
		At:         time.Unix(100, 0),
		Components: []traffic.Component{{Name: "A"}, {Name: "B"}},
		Calls:      []graph.Call{{From: "A", To: "B", Rate: rate}},
	}
	for i := range nodes {
		n := fmt.Sprintf("n%d", i)
		s.Nodes = append(s.Nodes, traffic.Node{Name: n, Ready: true, Locality: "r/z/" + n})
		for j := range nodes {
			if i != j {
				s.Delays = append(s.Delays, graph.Delay{From: n, To: fmt.Sprintf("n%d", j), Ms: delayMs})
			}
		}
	}
	for i := range callers {
		s.Replicas = append(s.Replicas, traffic.Replica{
			Name: fmt.Sprintf("a-%d", i), Component: "A", Node: fmt.Sprintf("n%d", i%nodes), Ready: true,
			CPU: 0.01, CPULimit: 1, Requests: rate / float64(callers), LatencyP95: 5, ErrorRate: 0,
		})
	}
	perPod := rate / float64(nodes*podsPerNode)
	for i := range nodes {
		for j := range podsPerNode {
			s.Replicas = append(s.Replicas, traffic.Replica{
				Name: fmt.Sprintf("b-%d-%d", i, j), Component: "B", Node: fmt.Sprintf("n%d", i), Ready: true,
				CPU: perPod * costMs / 1000, CPULimit: 1, Requests: perPod, LatencyP95: 20, ErrorRate: 0,
			})
		}
	}
	return s
}

func routeB(t *testing.T, opts Options, s traffic.Snapshot) traffic.Route {
	t.Helper()
	a, err := NewARTT(opts).Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := a.Route("B")
	if !ok {
		t.Fatal("no route for B")
	}
	return r
}

func hasNote(r traffic.Route, prefix string) bool {
	for _, n := range r.Notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// One pod per node at 75% load with sub-millisecond links: the table's
// static split adds far more queueing than its locality saves, so B is left
// to Envoy, and no weights are written for it.
func TestHandoverLeavesAStaticSplitToEnvoy(t *testing.T) {
	r := routeB(t, DefaultOptions(), callerCallee(3, 3, 1, 180, 12.5, 0.4))
	if !r.Envoy || len(r.Sources) != 0 || !hasNote(r, "left to Envoy") {
		t.Fatalf("B: envoy %v, sources %v, notes %q; want it left to Envoy", r.Envoy, r.Sources, r.Notes)
	}
	if len(r.Groups) != 3 {
		t.Errorf("B left to Envoy lists %d groups, want its 3 groups still tracked", len(r.Groups))
	}
	ds, err := istio.Distributes(r, func(n string) (string, bool) { return "r/z/" + n, true })
	if err != nil || ds != nil {
		t.Errorf("distribute entries for a route left to Envoy: %v, %v; want none", ds, err)
	}
	// Two-thirds of the calls cross a 0.4 ms link under least-request.
	if math.Abs(r.Cost-0.4*2/3) > 1e-9 {
		t.Errorf("cost %v, want least-request's spread 0.4 × 2/3", r.Cost)
	}
}

// The same load over 10 ms links: keeping calls local saves more than the
// static split costs, so ARTT writes its table.
func TestHandoverKeepsTheTableWhenTheNetworkPays(t *testing.T) {
	r := routeB(t, DefaultOptions(), callerCallee(3, 3, 1, 180, 12.5, 10))
	if r.Envoy || len(r.Sources) == 0 || !hasNote(r, "table written") {
		t.Fatalf("B over 10 ms links: envoy %v, notes %q; want the table", r.Envoy, r.Notes)
	}
}

// Under ROUND_ROBIN (gRPC's only policy that honours locality weights)
// there is no per-request balancing to hand over to: without a table each
// pod gets a third. With the third node's pods 45% slower at the load of
// TestHandoverLeavesAStaticSplitToEnvoy, that third overloads it, so the
// table, split by capacity, is kept; priced as least-request, which would
// steer around the slow pod, the same component is left to Envoy.
func TestHandoverPricesTheCallersOwnPicks(t *testing.T) {
	s := callerCallee(3, 3, 1, 180, 12.5, 0.4)
	for i, r := range s.Replicas {
		if r.Component == "B" && r.Node == "n2" {
			s.Replicas[i].CPU *= 1.45
		}
	}
	if r := routeB(t, DefaultOptions(), s); !r.Envoy || !hasNote(r, "left to Envoy's least-request") {
		t.Errorf("LEAST_REQUEST: envoy %v, notes %q; want B left to Envoy's least-request", r.Envoy, r.Notes)
	}
	s.Components[1].Pick = traffic.PickBlind
	r := routeB(t, DefaultOptions(), s)
	if r.Envoy || len(r.Sources) == 0 || !hasNote(r, "table written") {
		t.Fatalf("ROUND_ROBIN: envoy %v, notes %q; want the table", r.Envoy, r.Notes)
	}
	if !hasNote(r, "table written: it saves") || !strings.Contains(strings.Join(r.Notes, " "), "spares the blind picks' even split") {
		t.Errorf("ROUND_ROBIN notes %q; want the table kept for sparing the even split", r.Notes)
	}
}

// Proxyless gRPC carries a table only under ROUND_ROBIN, which ARTT writes
// with it (RoundRobinUnderTable), and gets its least-request over every pod
// back when the table is lifted. With two pods per node at 70% load, the
// table's blind picks inside a node cost 14.3 ms more than least-request
// over all six pods; a table under Envoy, least-request inside each node,
// pays on 8 ms links, and one carried by round robin pays only where the
// links save more than that.
func TestATableCarriedByRoundRobinIsPricedBlindInsideANode(t *testing.T) {
	for _, c := range []struct {
		delayMs     float64
		envoy, grpc bool
	}{{8, false, true}, {15, false, false}} {
		s := callerCallee(3, 3, 2, 336, 12.5, c.delayMs)
		if r := routeB(t, DefaultOptions(), s); r.Envoy != c.envoy {
			t.Errorf("%v ms links, least-request inside a node: envoy %v, notes %q; want %v", c.delayMs, r.Envoy, r.Notes, c.envoy)
		}
		s.Components[1].RoundRobinUnderTable = true
		r := routeB(t, DefaultOptions(), s)
		if r.Envoy != c.grpc {
			t.Errorf("%v ms links, round robin under the table: envoy %v, notes %q; want %v", c.delayMs, r.Envoy, r.Notes, c.grpc)
		}
		if r.Envoy && !hasNote(r, "left to the clients' least-request over every pod") {
			t.Errorf("%v ms links: notes %q; want them to name least-request over every pod", c.delayMs, r.Notes)
		}
	}
	// One pod per node, the third 45% slower: the even split of blind picks
	// would overload it, but these callers get least-request back, which
	// steers around it, so the table is lifted as under Envoy.
	s := callerCallee(3, 3, 1, 180, 12.5, 0.4)
	for i, r := range s.Replicas {
		if r.Component == "B" && r.Node == "n2" {
			s.Replicas[i].CPU *= 1.45
		}
	}
	s.Components[1].RoundRobinUnderTable = true
	if r := routeB(t, DefaultOptions(), s); !r.Envoy {
		t.Errorf("a slow pod, least-request without the table: notes %q; want the table lifted", r.Notes)
	}
}

// Least-request is only as good as each sidecar's counts. With two pods
// per node at 70% load and three callers, the counts tell pods apart and
// least-request over all six pods beats a table that pools only each node's
// two, on 0.4 ms links; with 60 callers each sidecar rarely has a request in
// flight to either pod it draws, least-request is close to blind with or
// without a table, and the table's locality decides.
func TestHandoverWeighsHowMuchEachSidecarSees(t *testing.T) {
	few := routeB(t, DefaultOptions(), callerCallee(3, 3, 2, 336, 12.5, 0.4))
	if !few.Envoy {
		t.Errorf("3 callers: notes %q; want B left to Envoy", few.Notes)
	}
	many := routeB(t, DefaultOptions(), callerCallee(3, 60, 2, 336, 12.5, 0.4))
	if many.Envoy {
		t.Errorf("60 callers: notes %q; want the table", many.Notes)
	}
}

func TestHandoverNeedsMeasurementsAndHealthyGroups(t *testing.T) {
	s := callerCallee(3, 3, 1, 180, 12.5, 0.4)
	for i := range s.Replicas {
		if s.Replicas[i].Component == "B" {
			s.Replicas[i].Requests = math.NaN()
		}
	}
	if r := routeB(t, DefaultOptions(), s); r.Envoy || !hasNote(r, "no request rate") {
		t.Errorf("no request rates: envoy %v, notes %q; want the table kept and said why", r.Envoy, r.Notes)
	}

	// A group failing half its requests is Degraded: only a table can
	// give it less, so the table stays although the prices favour Envoy.
	p := NewARTT(DefaultOptions())
	s = callerCallee(3, 3, 1, 180, 12.5, 0.4)
	if _, err := p.Allocate(s); err != nil {
		t.Fatal(err)
	}
	s.At = time.Unix(101, 0)
	for i := range s.Replicas {
		if s.Replicas[i].Name == "b-2-0" {
			s.Replicas[i].ErrorRate = 0.5
		}
	}
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := a.Route("B")
	if r.Envoy || !hasNote(r, "a group is Degraded") {
		t.Errorf("with n2 Degraded: envoy %v, notes %q; want the table that cuts it", r.Envoy, r.Notes)
	}
}

// Saturated (more requests than the pods can serve): no static split helps,
// only per-request balancing spreads the excess by speed.
func TestHandoverLeavesASaturatedComponentToEnvoy(t *testing.T) {
	r := routeB(t, DefaultOptions(), callerCallee(3, 3, 1, 300, 12.5, 10))
	if !r.Envoy || !math.IsInf(judgeHandoverOf(t, callerCallee(3, 3, 1, 300, 12.5, 10), calleeLoad{}).queueingMs, 1) {
		t.Errorf("saturated: envoy %v, notes %q; want Envoy with infinite queueing", r.Envoy, r.Notes)
	}
}

// After a burst: one pod per node ran at its 1-core limit (80 requests per
// second at 12.5 ms) and a new idle pod has joined each node. The steady
// prices see room on the new pods, and on 15 ms links the table's locality
// would pay; but the full pods' queues are in no counter, so the table is
// not priced and B goes to least-request. The same pods a tenth short of
// their limit keep the table, and so do blind callers, which have nothing
// better to hand over to, and pods with no limit to reach.
func TestATableFeedingAFullPodIsNotPriced(t *testing.T) {
	afterBurst := func(utilization float64) traffic.Snapshot {
		s := callerCallee(3, 3, 1, 240*utilization, 12.5, 15)
		for i := range 3 {
			s.Replicas = append(s.Replicas, traffic.Replica{
				Name: fmt.Sprintf("b-new-%d", i), Component: "B", Node: fmt.Sprintf("n%d", i), Ready: true,
				CPU: 0, CPULimit: 1, Requests: 0, LatencyP95: math.NaN(), ErrorRate: math.NaN(),
			})
		}
		return s
	}
	if r := routeB(t, DefaultOptions(), afterBurst(1)); !r.Envoy || !hasNote(r, "left to Envoy's least-request") || !strings.Contains(strings.Join(r.Notes, " "), "ran at its CPU limit") {
		t.Errorf("full pods: envoy %v, notes %q; want least-request, saying a pod ran at its limit", r.Envoy, r.Notes)
	}
	if r := routeB(t, DefaultOptions(), afterBurst(0.9)); r.Envoy {
		t.Errorf("pods at 90%%: notes %q; want the table its locality pays for", r.Notes)
	}
	blind := afterBurst(1)
	blind.Components[1].Pick = traffic.PickBlind
	if r := routeB(t, DefaultOptions(), blind); r.Envoy {
		t.Errorf("full pods, blind callers: notes %q; want the table", r.Notes)
	}
	// Without a known limit (priced as 1 core) a pod has none to reach.
	unlimited := afterBurst(1)
	for i := range unlimited.Replicas {
		unlimited.Replicas[i].CPULimit = 0
	}
	if r := routeB(t, DefaultOptions(), unlimited); r.Envoy {
		t.Errorf("a core busy without a limit: notes %q; want the table", r.Notes)
	}
}

func TestHandoverCanBeSwitchedOff(t *testing.T) {
	opts := DefaultOptions()
	opts.LeaveToEnvoy = false
	r := routeB(t, opts, callerCallee(3, 3, 1, 180, 12.5, 0.4))
	if r.Envoy || len(r.Sources) == 0 || hasNote(r, "left to Envoy") || hasNote(r, "table written") {
		t.Errorf("LeaveToEnvoy off: envoy %v, notes %q; want the table and no pricing", r.Envoy, r.Notes)
	}
}

// judgeHandoverOf prices B's table in a fresh ARTT's first allocation, with
// what B's callees add below it.
func judgeHandoverOf(t *testing.T, s traffic.Snapshot, below calleeLoad) handover {
	t.Helper()
	opts := DefaultOptions()
	opts.LeaveToEnvoy = false
	r := routeB(t, opts, s)
	x, err := traffic.NewIndex(s)
	if err != nil {
		t.Fatal(err)
	}
	groups, supplies, _ := problem(x, "B")
	return judgeHandover(x, r, groups, supplies, callersOn(x, "B")).withCallees(below)
}

// Blind picks (sidecars far too many for their counts to differ) land on
// a slow pod as often as on a fast one, each pod its own queue: two pods
// of 100 and 50 requests per second at 90 per second answer in
// (1/(100 − 45) + 1/(50 − 45)) ÷ 2 = 0.109 s on average, where a split by
// capacity would answer in 0.033 s. At 125 per second the uniform split
// would overload the slow pod, so the counts thicken and half the picks
// are informed (two pods: the other half draw one pod twice), which still
// sends the slow pod 125 × (½·⅓ + ½·½) = 52 per second: +Inf, yet not
// saturation, as a split by capacity serves it.
func TestBlindPicksLandOnEveryPodAlike(t *testing.T) {
	got, saturated := leastRequestResponse(90, []float64{100, 50}, 1_000_000)
	if want := (1.0/55 + 1.0/5) / 2; saturated || math.Abs(got-want) > 0.01*want {
		t.Errorf("blind over 100 and 50 requests/s at 90: %.4f s (saturated %v), want %.4f s", got, saturated, want)
	}
	got, saturated = leastRequestResponse(125, []float64{100, 50}, 1_000_000)
	if saturated || !math.IsInf(got, 1) {
		t.Errorf("blind picks overloading the slow pod: %v s, saturated %v; want +Inf, not saturated", got, saturated)
	}
	if _, saturated = leastRequestResponse(160, []float64{100, 50}, 1); !saturated {
		t.Error("160 requests/s over 150 of capacity: want saturated")
	}
}

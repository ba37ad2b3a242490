package allocate

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
)

func row(node string, to ...traffic.Amount) traffic.Source {
	return traffic.Source{Node: node, To: to}
}

// A caller's choice of node moves only the traffic its nodes' rows send to
// different places.
func TestSteerableCountsWhatTheRowsSendApart(t *testing.T) {
	a, b := traffic.Amount{Node: "a", Value: 1}, traffic.Amount{Node: "b", Value: 1}
	half := []traffic.Amount{{Node: "a", Value: 0.5}, {Node: "b", Value: 0.5}}
	for _, c := range []struct {
		name  string
		rows  []traffic.Source
		nodes []string
		want  float64
	}{
		{"each node to its own", []traffic.Source{row("a", a), row("b", b)}, []string{"a", "b"}, 1},
		{"rows alike", []traffic.Source{row("a", half...), row("b", half...)}, []string{"a", "b"}, 0},
		{"half shared", []traffic.Source{row("a", half...), row("b", b)}, []string{"a", "b"}, 0.5},
		{"one caller node", []traffic.Source{row("a", a), row("b", b)}, []string{"a"}, 0},
		{"other callers' rows left out", []traffic.Source{row("a", a), row("b", b), row("c", half...)}, []string{"a", "b"}, 1},
	} {
		nodes := make(map[string]bool)
		for _, n := range c.nodes {
			nodes[n] = true
		}
		if got := steerable(c.rows, nodes); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: steerable %v, want %v", c.name, got, c.want)
		}
	}
}

// graphOf indexes a snapshot of the given calls alone (rates unknown).
func graphOf(t *testing.T, calls ...[2]string) *traffic.Index {
	t.Helper()
	var s traffic.Snapshot
	seen := map[string]bool{}
	for _, c := range calls {
		for _, name := range c {
			if !seen[name] {
				seen[name] = true
				s.Components = append(s.Components, traffic.Component{Name: name})
			}
		}
		s.Calls = append(s.Calls, graph.Call{From: c[0], To: c[1], Rate: math.NaN()})
	}
	x, err := traffic.NewIndex(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// Callees are judged before their callers; a cycle is broken at its first
// member, after which the rest of it and its callers follow.
func TestCalleesAreJudgedBeforeTheirCallers(t *testing.T) {
	chain := graphOf(t, [2]string{"A", "B"}, [2]string{"B", "C"}, [2]string{"A", "C"})
	if got, want := calleesFirst(chain, []string{"A", "B", "C"}), []string{"C", "B", "A"}; !slices.Equal(got, want) {
		t.Errorf("chain: %v, want %v", got, want)
	}
	cycle := graphOf(t, [2]string{"A", "B"}, [2]string{"B", "C"}, [2]string{"C", "B"}, [2]string{"D", "E"})
	if got, want := calleesFirst(cycle, []string{"A", "B", "C", "D", "E"}), []string{"E", "D", "B", "A", "C"}; !slices.Equal(got, want) {
		t.Errorf("cycle: %v, want %v", got, want)
	}
}

// A caller whose requests make two calls each to a callee under a table
// that sends each caller node to its own node: each request holds its
// count through both calls, and its table freezes both calls' excess over
// the callee's pods pooled.
func TestACallerCarriesItsCalleesWaits(t *testing.T) {
	x := graphOf(t, [2]string{"A", "B"})
	groups := []traffic.Group{
		{Node: "a", Replicas: []traffic.Replica{{Requests: 100}}},
		{Node: "b", Replicas: []traffic.Replica{{Requests: 50}}},
	}
	b := judged{lambda: 300, responseSeconds: 0.02, unpooledSeconds: 0.01, rows: []traffic.Source{
		row("a", traffic.Amount{Node: "a", Value: 1}), row("b", traffic.Amount{Node: "b", Value: 1}),
	}}
	got := calleeLoadOf(x, "A", groups, map[string]judged{"B": b})
	if math.Abs(got.heldSeconds-0.04) > 1e-12 || math.Abs(got.frozenSeconds-0.02) > 1e-12 {
		t.Errorf("held %v s, frozen %v s; want 2 calls × 0.02 s and 2 calls × 0.01 s", got.heldSeconds, got.frozenSeconds)
	}
	b.rows, b.unpooledSeconds = nil, 0 // B left to its callers' picks
	if got := calleeLoadOf(x, "A", groups, map[string]judged{"B": b}); got.frozenSeconds != 0 || math.Abs(got.heldSeconds-0.04) > 1e-12 {
		t.Errorf("B without a table: held %v s, frozen %v s; want 0.04 s held and nothing frozen", got.heldSeconds, got.frozenSeconds)
	}
	if got := calleeLoadOf(x, "A", groups, nil); got != (calleeLoad{}) {
		t.Errorf("B not judged yet: %+v, want nothing", got)
	}
}

// B's table pays on 10 ms links (TestHandoverKeepsTheTableWhenTheNetworkPays).
// What it freezes in B's callees, at the part of the callers' picks their
// counts inform, is a price like its own queueing: past the table's margin
// the table goes; at half of it, it stays. Waits below hold the callers'
// counts longer, so more of their picks are informed.
func TestAFrozenCalleeIsPricedInTheTable(t *testing.T) {
	s := callerCallee(3, 3, 1, 180, 12.5, 10)
	alone := judgeHandoverOf(t, s, calleeLoad{})
	margin := alone.savingMs - alone.queueingMs
	p := alone.prices
	informed := informedFraction(p.lambda, p.rates, p.callers, 0)
	if alone.envoy || !(margin > 0) || !(informed > 0) {
		t.Fatalf("B alone: envoy %v, margin %v ms, informed %v; want a table with a margin and informed picks", alone.envoy, margin, informed)
	}
	frozen := func(ms float64) calleeLoad { return calleeLoad{frozenSeconds: ms / 1000 / informed} }
	if h := judgeHandoverOf(t, s, frozen(2*margin)); !h.envoy || math.Abs(h.queueingMs-alone.queueingMs-2*margin) > 1e-9 || math.Abs(h.frozenMs-2*margin) > 1e-9 {
		t.Errorf("freezing twice the margin below: envoy %v, queueing %v ms (%v frozen); want it left to Envoy at %v ms", h.envoy, h.queueingMs, h.frozenMs, alone.queueingMs+2*margin)
	}
	if h := judgeHandoverOf(t, s, frozen(margin/2)); h.envoy {
		t.Errorf("freezing half the margin below: left to Envoy; want the table kept")
	}
	if held := informedFraction(p.lambda, p.rates, p.callers, 0.05); !(held > informed) {
		t.Errorf("informed fraction %v with 50 ms held below, %v without; want more", held, informed)
	}
}

// gatewayOver is callerCallee with a gateway G on n0 calling A.
func gatewayOver(delayMs float64) traffic.Snapshot {
	s := callerCallee(3, 3, 1, 180, 12.5, delayMs)
	s.Components = append(s.Components, traffic.Component{Name: "G"})
	s.Calls = append(s.Calls, graph.Call{From: "G", To: "A", Rate: math.NaN()})
	s.Replicas = append(s.Replicas, traffic.Replica{
		Name: "g-0", Component: "G", Node: "n0", Ready: true,
		CPU: math.NaN(), Requests: math.NaN(), LatencyP95: math.NaN(), ErrorRate: math.NaN(),
	})
	return s
}

// Through a whole cycle: where B keeps its table (10 ms links), each of A's
// nodes sends B's calls to its own node, and A's price carries B's queues;
// where B is left to Envoy (0.4 ms), A's carries nothing of B's.
func TestACallersPriceReadsItsCalleesVerdictOfTheCycle(t *testing.T) {
	for _, c := range []struct {
		delayMs float64
		frozen  bool
	}{{10, true}, {0.4, false}} {
		alloc, err := NewARTT(DefaultOptions()).Allocate(gatewayOver(c.delayMs))
		if err != nil {
			t.Fatal(err)
		}
		a, okA := alloc.Route("A")
		b, okB := alloc.Route("B")
		if !okA || !okB || b.Envoy == c.frozen {
			t.Fatalf("%v ms links: routes A %v, B %v (B left to Envoy: %v); want both, B's table %v", c.delayMs, okA, okB, b.Envoy, c.frozen)
		}
		if got := strings.Contains(strings.Join(a.Notes, " "), "in its callees' queues"); got != c.frozen {
			t.Errorf("%v ms links: A's notes %q; want B's queues priced in them: %v", c.delayMs, a.Notes, c.frozen)
		}
	}
}

// A cycle in the call graph (B calls A back) is judged too: every component
// gets its route and verdict.
func TestACycleOfCallsIsJudged(t *testing.T) {
	s := gatewayOver(10)
	s.Calls = append(s.Calls, graph.Call{From: "B", To: "A", Rate: 20})
	alloc, err := NewARTT(DefaultOptions()).Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"A", "B"} {
		r, ok := alloc.Route(c)
		if !ok || !(hasNote(r, "table written") || hasNote(r, "left to Envoy")) {
			t.Errorf("%s in a cycle: route %v, notes %q; want a priced verdict", c, ok, r.Notes)
		}
	}
}

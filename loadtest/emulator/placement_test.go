package emulator

import (
	"fmt"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// placementScenario is a → b on three 1-core nodes (two 0.5-core pods
// each) where n1–n2 is 1 ms, n1–n3 5 ms and n2–n3 9 ms.
func placementScenario(policy string, aReplicas, bReplicas int) *scenario.Scenario {
	sc := &scenario.Scenario{
		Name: "placement", Duration: scenario.Duration{Duration: time.Minute}, Seed: 5,
		Cluster: scenario.Cluster{
			Nodes: []scenario.Node{{Name: "n1", Cores: 1}, {Name: "n2", Cores: 1}, {Name: "n3", Cores: 1}},
			Delays: scenario.Delays{Links: []scenario.Link{
				{From: "n1", To: "n2", Ms: 1, Symmetric: true}, {From: "n1", To: "n3", Ms: 5, Symmetric: true}, {From: "n2", To: "n3", Ms: 9, Symmetric: true},
			}},
		},
		Application: scenario.Application{Components: []scenario.Component{
			{Name: "a", CPUPerRequest: scenario.Duration{Duration: time.Millisecond}, Replicas: aReplicas, CPURequest: 0.5, Calls: []string{"b"}},
			{Name: "b", CPUPerRequest: scenario.Duration{Duration: time.Millisecond}, Replicas: bReplicas, CPURequest: 0.5},
		}},
		Workload: scenario.Workload{Type: "constant", Rate: 10},
		Runs:     []scenario.Run{{Routing: "least-request", Placement: policy}},
	}
	if err := sc.FillAndValidate(); err != nil {
		panic(fmt.Sprint(err))
	}
	return sc
}

func podNodes(e *Emulator, component string) []string {
	var out []string
	for _, p := range e.byName[component].pods {
		out = append(out, p.node.name)
	}
	return out
}

// NetworkOverhead scores a node by its delay to the placed pods the pod
// depends on: b's first pod joins a's node, the second (a's node now full)
// the node nearest to it; whichever node a drew.
func TestNetworkOverheadPlacesNextToDependencies(t *testing.T) {
	nearest := map[string]string{"n1": "n2", "n2": "n1", "n3": "n1"}
	seen := map[string]bool{}
	for seed := range uint64(12) {
		sc := placementScenario("network-overhead", 1, 2)
		sc.Seed = seed
		e, err := New(sc, sc.Runs[0], workload.Constant(10), Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := podNodes(e, "a")[0], podNodes(e, "b")
		seen[a] = true
		if b[0] != a || b[1] != nearest[a] {
			t.Errorf("seed %d: a on %s, b on %v; want b on %s then %s", seed, a, b, a, nearest[a])
		}
	}
	if len(seen) < 2 {
		t.Errorf("a's pod always on %v: with nothing placed yet every node scores alike and the scheduler picks at random", seen)
	}
}

// LARP groups a×2 and b×2 into two groups {a0, b0}, {a1, b1} and puts them
// on the closest pair of nodes, n1 and n2; a third b pod joins a group and
// its node when it has room, else the node nearest to that group's.
func TestLARPPlacesGroupsOnTheClosestNodes(t *testing.T) {
	sc := placementScenario("larp", 2, 2)
	e, err := New(sc, sc.Runs[0], workload.Constant(10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := podNodes(e, "a"), podNodes(e, "b")
	if a[0] == a[1] || a[0] == "n3" || a[1] == "n3" || b[0] == b[1] || b[0] == "n3" || b[1] == "n3" {
		t.Fatalf("a on %v, b on %v; want each group on one of n1, n2", a, b)
	}
	groupOf := map[string]string{a[0]: "g0", a[1]: "g1"}
	if groupOf[b[0]] == "" || groupOf[b[1]] == "" {
		t.Errorf("b on %v is not with a's groups on %v", b, a)
	}
	// n1 and n2 are full (two 0.5-core pods each): a new b pod goes to the
	// node nearest to its group's, n3 being the only one with room.
	p, err := e.createPod(e.byName["b"], nil, false)
	if err != nil || p == nil {
		t.Fatalf("third b pod not placed: %v", err)
	}
	if p.node.name != "n3" {
		t.Errorf("third b pod on %s, want n3 (the only node with room)", p.node.name)
	}
	// It left the plan when it went; a fourth pod fits nowhere but n3.
	e.terminate(p, true)
	if q, _ := e.createPod(e.byName["b"], nil, false); q == nil || q.node.name != "n3" {
		t.Errorf("after the third pod went, a new one on %v; want n3 again", q)
	}
}

// Racks set the delay between their own nodes, the default stays between
// racks, and a link overrides both, scaled alike.
func TestDelayMatrixRacksDefaultAndLinks(t *testing.T) {
	sc := placementScenario("default", 1, 1)
	sc.Cluster.Nodes = append(sc.Cluster.Nodes, scenario.Node{Name: "n4", Cores: 1})
	sc.Cluster.Delays = scenario.Delays{
		DefaultMs: 1, RackMs: 0.2, Scale: 2, LocalMs: sc.Cluster.Delays.LocalMs,
		Racks: [][]string{{"n1", "n2"}, {"n3", "n4"}},
		Links: []scenario.Link{{From: "n3", To: "n4", Ms: 3}},
	}
	m := sc.Cluster.DelayMatrix()
	for _, c := range []struct {
		from, to int
		want     float64
	}{{0, 1, 0.4}, {1, 0, 0.4}, {0, 2, 2}, {3, 1, 2}, {2, 3, 6}, {3, 2, 0.4}, {0, 0, *sc.Cluster.Delays.LocalMs}} {
		if got := m[c.from][c.to]; got != c.want {
			t.Errorf("delay n%d→n%d = %g ms, want %g", c.from+1, c.to+1, got, c.want)
		}
	}
}

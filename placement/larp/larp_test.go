package larp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/artt-dev/artt/graph"
)

func TestGroupingFollowsThePapersExample(t *testing.T) {
	groups := group([]Component{{Name: "A", Replicas: 3, CPU: 1}, {Name: "B", Replicas: 2, CPU: 0.5}}, 5)
	want := []string{"A0 A2 B1", "A1 B0"}
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2 (mean replica count 2.5, rounded down)", len(groups))
	}
	for i, g := range groups {
		var names []string
		for _, r := range g.Replicas {
			names = append(names, fmt.Sprintf("%s%d", r.Component, r.Index))
		}
		if got := strings.Join(names, " "); got != want[i] {
			t.Errorf("group %d: %s, want %s", i, got, want[i])
		}
	}
	if groups[0].CPU != 2.5 || groups[1].CPU != 1.5 {
		t.Errorf("group CPU %v and %v, want 2.5 and 1.5", groups[0].CPU, groups[1].CPU)
	}
	// At most one group per node.
	if n := len(group([]Component{{Name: "A", Replicas: 6}}, 4)); n != 4 {
		t.Errorf("6 replicas on 4 nodes: %d groups, want 4", n)
	}
}

// randomProblem places points in a 10 ms square: delays are distances, so
// they obey the triangle inequality. roomy gives every node room for all
// the replicas; otherwise capacities bind.
func randomProblem(rng *rand.Rand, roomy bool) Problem {
	var p Problem
	nodes := 5 + rng.IntN(6)
	xs, ys := make([]float64, nodes), make([]float64, nodes)
	for i := range nodes {
		xs[i], ys[i] = 10*rng.Float64(), 10*rng.Float64()
	}
	comps := 2 + rng.IntN(3)
	total := 0.0
	for i := range comps {
		c := Component{Name: fmt.Sprintf("c%d", i), Replicas: 2 + rng.IntN(7), CPU: 0.25 + rng.Float64(), Memory: float64(1+rng.IntN(4)) * (1 << 28)}
		total += float64(c.Replicas) * c.CPU
		p.Components = append(p.Components, c)
		if i > 0 {
			p.Calls = append(p.Calls, graph.Call{From: fmt.Sprintf("c%d", i-1), To: c.Name, Rate: math.NaN()})
		}
	}
	// A group holds about total ÷ k cores; tight nodes hold 0.85 to 1.35
	// groups' worth, so some cannot take the largest group.
	perGroup := total / float64(groupCount(p.Components, nodes))
	for i := range nodes {
		cpu := total
		if !roomy {
			cpu = perGroup * (0.85 + 0.5*rng.Float64())
		}
		p.Nodes = append(p.Nodes, Node{Name: fmt.Sprintf("n%d", i), CPU: cpu, Memory: 1 << 40})
		for j := range nodes {
			if i != j {
				p.Delays = append(p.Delays, graph.Delay{From: fmt.Sprintf("n%d", i), To: fmt.Sprintf("n%d", j), Ms: math.Hypot(xs[i]-xs[j], ys[i]-ys[j])})
			}
		}
	}
	return p
}

// checkPlan verifies that every replica is placed once, that an
// application's groups use distinct nodes, and that no node is over its
// capacity.
func checkPlan(t *testing.T, p Problem, plan Plan) {
	t.Helper()
	placed := map[Replica]int{}
	cpu, mem := map[string]float64{}, map[string]float64{}
	for _, g := range plan.Groups {
		for _, r := range g.Replicas {
			placed[r]++
		}
		cpu[g.Node] += g.CPU
		mem[g.Node] += g.Memory
	}
	for _, c := range p.Components {
		for i := range c.Replicas {
			if placed[Replica{c.Name, i}] != 1 {
				t.Errorf("replica %s/%d placed %d times", c.Name, i, placed[Replica{c.Name, i}])
			}
		}
	}
	for _, n := range p.Nodes {
		if cpu[n.Name] > n.CPU+1e-9 || mem[n.Name] > n.Memory {
			t.Errorf("node %s holds %.3f cores of %.3f", n.Name, cpu[n.Name], n.CPU)
		}
	}
	seen := map[string]bool{}
	for _, g := range plan.Groups {
		if seen[g.Node] {
			t.Errorf("two groups on %s", g.Node) // one application in these problems
		}
		seen[g.Node] = true
	}
}

func TestGreedyIsWithinItsBoundOfTheExactPlacement(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var sumGap, worstGap float64
	optimal, n := 0, 400
	for range n {
		p := randomProblem(rng, true)
		exact, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		greedy, err := Greedy(p)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, p, exact)
		checkPlan(t, p, greedy)
		if greedy.Cost < exact.Cost-1e-9 {
			t.Fatalf("greedy %.6f beats the exact %.6f: the exact solver is wrong", greedy.Cost, exact.Cost)
		}
		k := float64(len(exact.Groups))
		gap := 1.0
		if exact.Cost > 0 {
			gap = greedy.Cost / exact.Cost
		}
		if bound := 2 * (k - 1) / k; k > 1 && gap > bound+1e-9 {
			t.Errorf("%d groups: greedy %.4f against exact %.4f, a ratio %.3f over the bound %.3f", int(k), greedy.Cost, exact.Cost, gap, bound)
		}
		sumGap += gap
		worstGap = max(worstGap, gap)
		if gap < 1+1e-9 {
			optimal++
		}
	}
	t.Logf("room everywhere: greedy/exact mean %.4f, worst %.4f; optimal in %d of %d", sumGap/float64(n), worstGap, optimal, n)
}

func TestCapacityIsAlwaysRespected(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var sumGap, worstGap float64
	both, greedyFailed, infeasible := 0, 0, 0
	for range 400 {
		p := randomProblem(rng, false)
		exact, errE := Exact(p)
		greedy, errG := Greedy(p)
		if errE == nil {
			checkPlan(t, p, exact)
		}
		if errG == nil {
			checkPlan(t, p, greedy)
		}
		switch {
		case errE != nil:
			infeasible++
			if errG == nil {
				t.Errorf("greedy placed what the exact solver calls infeasible: %v", errE)
			}
			if !strings.Contains(errE.Error(), "fits on no node") {
				t.Errorf("infeasible placement error %q does not say which group does not fit", errE)
			}
		case errG != nil:
			greedyFailed++
		default:
			both++
			gap := 1.0
			if exact.Cost > 0 {
				gap = greedy.Cost / exact.Cost
			}
			sumGap += gap
			worstGap = max(worstGap, gap)
		}
	}
	t.Logf("tight capacity: %d placed by both (greedy/exact mean %.4f, worst %.4f), %d by the exact solver only, %d infeasible",
		both, sumGap/float64(max(both, 1)), worstGap, greedyFailed, infeasible)
	if both < 100 {
		t.Errorf("only %d of 400 tight instances were feasible for both; the test says little", both)
	}
}

func TestBadInputNamesTheField(t *testing.T) {
	_, err := Greedy(Problem{
		Components: []Component{{Name: "a", Replicas: 0}, {Name: "b", Replicas: 1, CPU: math.NaN()}},
		Nodes:      []Node{{Name: "n1", CPU: -1}},
		Calls:      []graph.Call{{From: "a", To: "zz"}},
		Delays:     []graph.Delay{{From: "n1", To: "n9", Ms: 1}},
	})
	for _, want := range []string{"components[0].replicas", "components[1].cpu", "nodes[0].cpu", "calls[0].to", "delays[0].to"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
	if _, err := Exact(Problem{Nodes: make([]Node, ExactMaxNodes+1)}); err == nil || !strings.Contains(err.Error(), "Greedy") {
		t.Errorf("exact on too many nodes: %v", err)
	}
	_, err = Greedy(Problem{Components: []Component{{Name: "big", Replicas: 1, CPU: 8}}, Nodes: []Node{{Name: "n1", CPU: 4, Memory: 1 << 30}}})
	if err == nil || !strings.Contains(err.Error(), "group 0 (big×1: 8 cores") || !strings.Contains(err.Error(), "4 cores on n1") {
		t.Errorf("a group too big for any node: %v", err)
	}
}

func TestAddReplicaJoinsTheGroupShortOfIt(t *testing.T) {
	p := Problem{
		Components: []Component{{Name: "A", Replicas: 3, CPU: 0.5}, {Name: "B", Replicas: 2, CPU: 0.5}, {Name: "solo", Replicas: 1, CPU: 0.1}},
		Calls:      []graph.Call{{From: "A", To: "B"}},
		Nodes:      []Node{{Name: "n1", CPU: 4, Memory: 1 << 30}, {Name: "n2", CPU: 4, Memory: 1 << 30}, {Name: "n3", CPU: 4, Memory: 1 << 30}},
		Delays:     []graph.Delay{{From: "n1", To: "n2", Ms: 1}, {From: "n2", To: "n1", Ms: 1}, {From: "n1", To: "n3", Ms: 5}, {From: "n3", To: "n1", Ms: 5}, {From: "n2", To: "n3", Ms: 5}, {From: "n3", To: "n2", Ms: 5}},
	}
	plan, err := Greedy(p)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := plan.NodeOf("A", 0), plan.NodeOf("A", 1); a == b || a == "n3" || b == "n3" {
		t.Errorf("A's groups on %s and %s, want n1 and n2 (the 1 ms pair)", a, b)
	}
	// B has one replica in each group; a third goes to the group with
	// fewer replicas overall, the one holding A1 and B0.
	g, err := plan.AddReplica("B", 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if plan.NodeOf("B", 2) != plan.NodeOf("A", 1) || g < 0 {
		t.Errorf("B's third replica joined group %d on %s, want A1's group on %s", g, plan.NodeOf("B", 2), plan.NodeOf("A", 1))
	}
	// A now has two replicas in one group and one in the other.
	plan.AddReplica("A", 0.5, 0)
	if plan.NodeOf("A", 3) != plan.NodeOf("A", 1) {
		t.Errorf("A's fourth replica on %s, want the group short of A (%s)", plan.NodeOf("A", 3), plan.NodeOf("A", 1))
	}
	if _, err := plan.AddReplica("nope", 1, 0); err == nil {
		t.Error("a replica of an unknown component joined a group")
	}
}

func FuzzGreedy(f *testing.F) {
	f.Add([]byte{3, 2, 5, 1, 9, 200, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() float64 {
			if len(data) == 0 {
				return 0
			}
			v := data[0]
			data = data[1:]
			return float64(v)
		}
		var p Problem
		for i := range 1 + int(next())%4 {
			p.Components = append(p.Components, Component{Name: fmt.Sprintf("c%d", i), Replicas: int(next()) % 6, CPU: next() / 64, Memory: next()})
		}
		for i := range int(next()) % 7 {
			p.Nodes = append(p.Nodes, Node{Name: fmt.Sprintf("n%d", i), CPU: next() / 16, Memory: 1024 * next()})
		}
		for range int(next()) % 10 {
			if len(p.Nodes) == 0 {
				break
			}
			a, b := int(next())%len(p.Nodes), int(next())%len(p.Nodes)
			p.Delays = append(p.Delays, graph.Delay{From: p.Nodes[a].Name, To: p.Nodes[b].Name, Ms: next() / 10})
		}
		plan, err := Greedy(p)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		checkCapacity(t, p, plan)
	})
}

// checkCapacity is checkPlan's capacity part, for problems of several
// applications.
func checkCapacity(t *testing.T, p Problem, plan Plan) {
	cpu := map[string]float64{}
	for _, g := range plan.Groups {
		cpu[g.Node] += g.CPU
	}
	for _, n := range p.Nodes {
		if cpu[n.Name] > n.CPU+1e-9 {
			t.Fatalf("node %s holds %.3f cores of %.3f", n.Name, cpu[n.Name], n.CPU)
		}
	}
}

package emulator

import (
	"slices"
	"testing"
)

// The shrinks of a live run of live-sessions, worked from the ReplicaSet
// controller's ranking. Two initial pods (fast, medium) ready since 0; a
// step started pods at 135 s and 151 s, ready 10 s later, three per node.
// At 255 s the Deployment goes from 9 to 6: every node holds three, the
// new pods were all Ready between 2^36 and 2^37 ns ago (94–110 s) and the
// initial ones longer, so three of the six new pods go, by UID. At 285 s,
// from 6 to 3: the fast node holds the most, so all three of its pods go,
// the oldest among them, and the slow node keeps two. Removing the newest
// first, as the lab did before, would have kept the fast node's initial pod.
func TestAShrinkRemovesPodsAsTheReplicaSetRanksThem(t *testing.T) {
	fast, medium, slow := &node{name: "fast"}, &node{name: "medium"}, &node{name: "slow"}
	c := &component{}
	pod := func(name string, n *node, born float64, uid uint64) *replica {
		p := &replica{name: name, node: n, comp: c, state: ready, born: born, readyAt: born + 10, uid: uid}
		if born == 0 {
			p.readyAt = 0
		}
		c.pods = append(c.pods, p)
		return p
	}
	pod("fast-initial", fast, 0, 9)
	pod("medium-initial", medium, 0, 1)
	pod("fast-135", fast, 135.3, 5)
	pod("slow-135", slow, 135.3, 2)
	pod("medium-135", medium, 135.4, 3)
	pod("slow-151", slow, 151.0, 7)
	pod("fast-151", fast, 151.0, 8)
	pod("medium-151", medium, 151.2, 4)
	pod("slow-135b", slow, 135.3, 6)
	e := &Emulator{now: 255.5, phases: ScrapePhases{Wall: 2003.689}}

	got := names(e.scaleDownOrder(c)[:3])
	if want := []string{"slow-135", "medium-135", "medium-151"}; !slices.Equal(got, want) {
		t.Fatalf("9 → 6 removes %v, want %v (the new pods by UID)", got, want)
	}
	c.pods = slices.DeleteFunc(c.pods, func(p *replica) bool { return slices.Contains(got, p.name) })
	e.now = 285.6
	got = names(e.scaleDownOrder(c)[:3])
	slices.Sort(got)
	if want := []string{"fast-135", "fast-151", "fast-initial"}; !slices.Equal(got, want) {
		t.Fatalf("6 → 3 removes %v, want %v (the node with the most pods)", got, want)
	}
}

// A pod not yet Ready goes before any Ready one, wherever it runs; between
// two Ready pods on equally full nodes, the one Ready for less time by a
// power of two goes first, whatever their UIDs.
func TestAShrinkRemovesAStartingPodThenTheYoungest(t *testing.T) {
	a, b := &node{name: "a"}, &node{name: "b"}
	c := &component{}
	old := &replica{name: "old", node: a, state: ready, born: 0, readyAt: 0, uid: 1}
	young := &replica{name: "young", node: b, state: ready, born: 50, readyAt: 60, uid: 9}
	starting := &replica{name: "starting", node: b, state: starting, born: 95, uid: 5}
	other := &replica{name: "other", node: a, state: ready, born: 0, readyAt: 0, uid: 3}
	c.pods = []*replica{old, young, starting, other}
	e := &Emulator{now: 100}
	if got, want := names(e.scaleDownOrder(c)), []string{"starting", "young", "old", "other"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func names(ps []*replica) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.name)
	}
	return out
}

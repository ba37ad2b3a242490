package importer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Costs generated as cpuPerRequest ÷ speed, with noise, are split back
// into both within the noise.
func TestFitSpeedsRecoversSpeedsAndCosts(t *testing.T) {
	speeds := map[string]float64{"a": 1, "b": 0.8, "c": 0.6}
	costs := map[string]float64{"front": 0.002, "back": 0.012, "db": 0.006}
	placement := map[string][]string{"front": {"a", "b", "c"}, "back": {"a", "b"}, "db": {"b", "c"}}
	rng := rand.New(rand.NewPCG(1, 2))
	var samples []costSample
	for c, nodes := range placement {
		for _, n := range nodes {
			noise := 1 + 0.01*rng.NormFloat64()
			samples = append(samples, costSample{component: c, node: n, cost: costs[c] / speeds[n] * noise, requests: 10 + 90*rng.Float64()})
		}
	}
	f := fitSpeeds(samples)
	for n, want := range speeds {
		if got := f.speed[n]; math.Abs(got/want-1) > 0.03 {
			t.Errorf("speed of %s %.4f, want %.2f within 3%%", n, got, want)
		}
	}
	for c, want := range costs {
		if got := f.cpuPerRequest[c]; math.Abs(got/want-1) > 0.03 {
			t.Errorf("cpuPerRequest of %s %.5f, want %.4f within 3%%", c, got, want)
		}
		if f.spread[c] > 0.05 {
			t.Errorf("spread of %s %.3f, want about the 1%% noise", c, f.spread[c])
		}
	}
	if len(f.groups) != 1 || len(f.groups[0]) != 3 {
		t.Errorf("groups %v, want the three nodes linked", f.groups)
	}
}

// Nodes that share no component cannot be compared: each group gets its
// own fastest node at 1.
func TestFitSpeedsReportsUnlinkedNodes(t *testing.T) {
	f := fitSpeeds([]costSample{
		{component: "x", node: "a", cost: 0.01, requests: 1},
		{component: "x", node: "b", cost: 0.02, requests: 1},
		{component: "y", node: "c", cost: 0.03, requests: 1},
	})
	if len(f.groups) != 2 || len(f.groups[0]) != 2 || f.groups[1][0] != "c" {
		t.Fatalf("groups %v, want [a b] and [c]", f.groups)
	}
	if f.speed["a"] != 1 || math.Abs(f.speed["b"]-0.5) > 1e-9 || f.speed["c"] != 1 {
		t.Errorf("speeds %v, want a 1, b 0.5, c 1 (alone)", f.speed)
	}
	if math.Abs(f.cpuPerRequest["y"]-0.03) > 1e-12 {
		t.Errorf("y costs %v at speed 1, want 0.03", f.cpuPerRequest["y"])
	}
}

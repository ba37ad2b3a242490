package allocate

import (
	"math"
	"strings"
	"testing"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/health"
)

// threeGroups is a component on n1, n2 and n3, one 1-core pod each, serving
// rate requests a second between them evenly.
func threeGroups(rate float64) []traffic.Group {
	groups := make([]traffic.Group, 3)
	for i, node := range []string{"n1", "n2", "n3"} {
		groups[i] = traffic.Group{Component: "B", Node: node, Replicas: []traffic.Replica{
			{Name: "b-" + node, Component: "B", Node: node, Ready: true, CPU: 0.01 * rate / 3, CPULimit: 1, Requests: rate / 3},
		}}
	}
	return groups
}

// healthyAt10ms is a Healthy status for a group that needs 10 ms of CPU a
// request: 100 requests a second on a core.
func healthyAt10ms() health.Status {
	return health.Status{State: health.Healthy, Weight: 1, Capacity: 1, CostBaseline: 0.01}
}

func TestGiveBack(t *testing.T) {
	slowed := health.Status{State: health.Degraded, Weight: 0.1, Capacity: 1.0 / 3, CostBaseline: 0.01}
	erring := health.Status{State: health.Degraded, Weight: 0.1, Capacity: 0, CostBaseline: 0.01}
	cut := []float64{0.485, 0.485, 0.03}
	for _, c := range []struct {
		why     string
		rate    float64
		n3      health.Status
		want    []float64
		wantCut bool
	}{
		{"light load: the cut stands", 60, slowed, cut, true},
		// Capacities 100, 100 and 33.3 a second; at 180 each used keeps
		// θ = (233.3 − 180) ÷ 3 = 17.8 spare, so n3 serves 33.3 − 17.8 =
		// 15.6 a second, 0.0864 of them, and n1 and n2 share the rest.
		{"near the others' limits the slowed group serves what it can at their delay", 180, slowed,
			[]float64{(1 - 14.0/162) / 2, (1 - 14.0/162) / 2, 14.0 / 162}, false},
		{"errors: no capacity to give back", 180, erring, cut, true},
		// Past every capacity each serves in proportion to it: 3/7, 3/7, 1/7.
		{"overloaded: shares in proportion to capacity", 300, slowed, []float64{3.0 / 7, 3.0 / 7, 1.0 / 7}, false},
	} {
		statuses := []health.Status{healthyAt10ms(), healthyAt10ms(), c.n3}
		got, note := giveBack(threeGroups(c.rate), cut, statuses)
		for i := range c.want {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Errorf("%s: shares %v, want %v", c.why, got, c.want)
				break
			}
		}
		if (note == "") != c.wantCut || (note != "" && !strings.Contains(note, "n3")) {
			t.Errorf("%s: note %q", c.why, note)
		}
	}
}

// A group whose cost is not learned counts at its peers' median; with no
// cost learned anywhere there is no model, and the shares stand.
func TestGiveBackWithoutCosts(t *testing.T) {
	cut := []float64{0.485, 0.485, 0.03}
	slowed := health.Status{State: health.Degraded, Weight: 0.1, Capacity: 1.0 / 3, CostBaseline: math.NaN()}
	statuses := []health.Status{healthyAt10ms(), healthyAt10ms(), slowed}
	if got, _ := giveBack(threeGroups(180), cut, statuses); math.Abs(got[2]-14.0/162) > 1e-9 {
		t.Errorf("n3's share %v, want %v as with its peers' cost", got[2], 14.0/162)
	}
	for i := range statuses {
		statuses[i].CostBaseline = math.NaN()
	}
	if got, note := giveBack(threeGroups(180), cut, statuses); got[2] != 0.03 || note != "" {
		t.Errorf("no cost learned: n3's share %v (%q), want the cut's 0.03", got[2], note)
	}
}

// A replica whose request count is unknown leaves the rate unknown: no
// model, and the cut stands.
func TestGiveBackWithoutARate(t *testing.T) {
	cut := []float64{0.485, 0.485, 0.03}
	slowed := health.Status{State: health.Degraded, Weight: 0.1, Capacity: 1.0 / 3, CostBaseline: 0.01}
	groups := threeGroups(180)
	groups[0].Replicas[0].Requests = math.NaN()
	if got, note := giveBack(groups, cut, []health.Status{healthyAt10ms(), healthyAt10ms(), slowed}); got[2] != 0.03 || note != "" {
		t.Errorf("rate unknown: n3's share %v (%q), want the cut's 0.03", got[2], note)
	}
}

package allocate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

// TestPeerMediansMatchesLeavingEachOut checks peerMedians against the
// definition: for each value, sort the finite others and take the middle.
// The inputs have NaNs, ties and groups of one and two.
func TestPeerMediansMatchesLeavingEachOut(t *testing.T) {
	leaveOut := func(xs []float64, skip int) float64 {
		var v []float64
		for i, x := range xs {
			if i != skip && !math.IsNaN(x) {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			return math.NaN()
		}
		slices.Sort(v)
		if n := len(v); n%2 == 1 {
			return v[n/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	rng := rand.New(rand.NewPCG(3, 7))
	for trial := range 2000 {
		xs := make([]float64, rng.IntN(9))
		for i := range xs {
			switch rng.IntN(5) {
			case 0:
				xs[i] = math.NaN()
			case 1:
				xs[i] = float64(rng.IntN(3)) // ties
			default:
				xs[i] = rng.Float64() * 100
			}
		}
		got := peerMedians(xs)
		if len(got) != len(xs) {
			t.Fatalf("%v: %d medians", xs, len(got))
		}
		for i := range xs {
			want := leaveOut(xs, i)
			if got[i] != want && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
				t.Fatalf("trial %d: peers of %v[%d] = %v, want %v", trial, xs, i, got[i], want)
			}
		}
	}
}

// A group's latency and error rate are its replicas' weighted by the
// requests they served, an unknown count as one request; a count near the
// largest float weighs the most without overflowing the sums. Its mean
// latency is over the same requests, unknown where a replica with a p95
// has none.
func TestGroupHealthInputsWeighByRequests(t *testing.T) {
	g := traffic.Group{Node: "n", Replicas: []traffic.Replica{
		{Name: "a", Requests: 30, LatencyP95: 10, LatencyMean: 4, ErrorRate: 0},
		{Name: "b", Requests: 10, LatencyP95: 50, LatencyMean: 20, ErrorRate: 0.4},
		{Name: "c", Requests: math.NaN(), LatencyP95: 90, LatencyMean: 30, ErrorRate: 0},
	}}
	p95, mean, p95Rate, errRate := groupHealthInputs(g, 0.5)
	if want := (30*10 + 10*50 + 90.0) / 41; math.Abs(p95-want) > 1e-12 {
		t.Errorf("p95 %v, want %v", p95, want)
	}
	if want := (30*4 + 10*20 + 30.0) / 41; math.Abs(mean-want) > 1e-12 {
		t.Errorf("mean %v, want %v", mean, want)
	}
	if p95Rate != 40 {
		t.Errorf("the p95 is over %v requests per second, want the 40 counted", p95Rate)
	}
	if want := 10 * 0.4 / 41; math.Abs(errRate-want) > 1e-12 {
		t.Errorf("error rate %v, want %v", errRate, want)
	}
	g.Replicas[2].LatencyMean = math.NaN()
	if _, mean, _, _ = groupHealthInputs(g, 0.5); !math.IsNaN(mean) {
		t.Errorf("a replica without a mean: group mean %v, want unknown (NaN)", mean)
	}
	g.Replicas[0].Requests = math.MaxFloat64
	if p95, _, _, errRate = groupHealthInputs(g, 0.5); math.Abs(p95-10) > 1e-9 || math.Abs(errRate) > 1e-9 {
		t.Errorf("with a count of MaxFloat64: p95 %v, error rate %v; want replica a's 10 and 0", p95, errRate)
	}
}

// A pod busy in the interval gives no latency evidence, however slow its
// requests: after a burst, one draining its backlog beside idle new pods
// must not make its node look sick. Its errors still count.
func TestGroupHealthInputsLeaveBusyPodsLatencyOut(t *testing.T) {
	g := traffic.Group{Node: "n", Replicas: []traffic.Replica{
		{Name: "draining", CPU: 0.63, CPULimit: 1, Requests: 20, LatencyP95: 11000, ErrorRate: 0.1},
		{Name: "new", CPU: 0.24, CPULimit: 1, Requests: 20, LatencyP95: 40, ErrorRate: 0},
	}}
	p95, _, p95Rate, errRate := groupHealthInputs(g, 0.5)
	if p95Rate != 20 {
		t.Errorf("the p95 is over %v requests per second, want the idle pod's 20", p95Rate)
	}
	if want := 40 * (1 - 0.24); math.Abs(p95-want) > 1e-9 || math.Abs(errRate-0.05) > 1e-12 {
		t.Errorf("p95 %v, error rate %v; want the idle pod's 40 ms load-free (%v), and both pods' errors (0.05)", p95, errRate, want)
	}
	g.Replicas[1].CPU = 0.9
	if p95, _, _, _ := groupHealthInputs(g, 0.5); !math.IsNaN(p95) {
		t.Errorf("every pod busy: p95 %v, want none (NaN)", p95)
	}
}

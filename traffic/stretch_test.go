package traffic

import (
	"math"
	"testing"
	"time"
)

func TestGroupCPUStretch(t *testing.T) {
	nan := math.NaN()
	pod := func(cpu, limit, waiting, throttled float64) Replica {
		return Replica{CPU: cpu, CPULimit: limit, CPUWaiting: waiting, ThrottledPeriods: throttled}
	}
	cases := []struct {
		name   string
		reps   []Replica
		want   float64
		wantOK bool
	}{
		{"no waiting", []Replica{pod(0.4, 1, 0, 0)}, 1, true},
		{"a neighbour takes two thirds", []Replica{pod(0.2, 1, 0.4, 0)}, 3, true},
		{"busy at its own limit: the quota explains the waiting", []Replica{pod(1, 1, 0.5, 9)}, 1, true},
		{"partly its own quota: 0.3 of 0.5 s/s explained", []Replica{pod(0.4, 1, 0.5, 3)}, 1.5, true},
		// Runnable 0.56 s/s and running 0.06 of it: φ = 0.107 of a core,
		// against the 0.3 its limit allows.
		{"throttled under a quota cut below its limit", []Replica{pod(0.06, 0.3, 0.5, 60)}, 0.56 * 0.3 / 0.06, true},
		// One thread under a 0.05-core limit, always runnable: alone it
		// runs 0.05 of the time; a neighbour leaves it 0.04.
		{"a neighbour takes a fifth of a sub-core limit", []Replica{pod(0.04, 0.05, 0.96, 0)}, 1.25, true},
		{"a neighbour takes five sixths of a sub-core limit", []Replica{pod(0.05/6, 0.05, 1-0.05/6, 0)}, 6, true},
		{"waiting, yet running more than its sub-core limit needs", []Replica{pod(0.02, 0.05, 0.2, 0)}, 1, true},
		{"summed over the group's pods", []Replica{pod(0.2, 1, 0.4, 0), pod(0.2, 1, 0, 0)}, 2, true},
		{"throttling unknown, under the busy bar", []Replica{pod(0.2, 1, 0.2, nan)}, 2, true},
		{"throttling unknown, at its limit: left out", []Replica{pod(0.9, 1, 0.5, nan)}, 1, false},
		{"pressure unknown", []Replica{pod(0.2, 1, nan, 0)}, 1, false},
		{"no CPU used", []Replica{pod(0, 1, 0.3, 0)}, 1, false},
		// 25 periods of 20 ms a second explain 0.5 s/s; read as the
		// kubelet's 100 ms, they would be 2.5 s/s, past what 0.45 cores
		// under a 0.5 limit can have used, and explain none.
		{"bursting at its limit under a short period", []Replica{withPeriod(pod(0.45, 0.5, 0.5, 25), 20*time.Millisecond)}, 1, true},
		{"the same, its period unknown", []Replica{pod(0.45, 0.5, 0.5, 25)}, 0.95 * 0.5 / 0.45, true},
	}
	for _, c := range cases {
		got, ok := Group{Replicas: c.reps}.CPUStretch(0.5, 1.5, CFSPeriod)
		if ok != c.wantOK || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, ok, c.want, c.wantOK)
		}
	}
}

func withPeriod(r Replica, period time.Duration) Replica {
	r.CFSPeriod = period
	return r
}

func TestSnapshotNodeUtilization(t *testing.T) {
	s := Snapshot{
		Nodes: []Node{{Name: "a", CPU: 4}, {Name: "b"}},
		Replicas: []Replica{
			{Node: "a", CPU: 1}, {Node: "a", CPU: 0.5}, {Node: "a", CPU: math.NaN()}, {Node: "b", CPU: 1},
		},
	}
	got := s.NodeUtilization()
	if u, ok := got["a"]; !ok || u != 1.5/4 {
		t.Errorf("node a: %v, %v; want 0.375 (an unknown CPU counts for none)", u, ok)
	}
	if _, ok := got["b"]; ok {
		t.Errorf("node b, whose CPU is unknown, has a utilisation %v", got["b"])
	}
}

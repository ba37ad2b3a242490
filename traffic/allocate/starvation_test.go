package allocate

import (
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/traffic"
)

// waitingPair is pair's cluster with 4-core nodes, every replica's CPU
// pressure and throttling known and zero, and B's pod on n2 given cpu,
// waiting and throttled periods.
func waitingPair(cpu, waiting, throttled float64) traffic.Snapshot {
	s := pair(1, 0.5)
	for i := range s.Nodes {
		s.Nodes[i].CPU = 4
	}
	for i := range s.Replicas {
		s.Replicas[i].CPUWaiting, s.Replicas[i].ThrottledPeriods = 0, 0
	}
	b := &s.Replicas[3]
	b.CPU, b.CPUWaiting, b.ThrottledPeriods = cpu, waiting, throttled
	b.Requests = 50 * cpu / 0.25 // the same CPU per request as b-n1
	return s
}

func TestARTTCutsAStarvedGroupAndLeavesABusyOne(t *testing.T) {
	cases := []struct {
		name                    string
		cpu, waiting, throttled float64
		nodeCPU                 float64
		wantHealth              string
		maxShare                float64
		why                     string
	}{
		{"starved by a neighbour", 0.25, 0.5, 0, 4, "Degraded", 0.25,
			"0.5 s/s waiting beside 0.25 cores used: its work stretched 3×, its half weighed by a third (1/6 against n1's 1/2, a quarter once scaled to a whole)"},
		{"busy at its own limit", 0.95, 0.6, 8, 4, "Healthy", 1,
			"throttled in 8 of 10 periods: 0.8 s/s of waiting its own quota explains, more than the 0.6 it waited"},
		{"a node busy with its own pods", 0.25, 0.5, 0, 0.5, "Healthy", 1,
			"the pods on n2 use 0.35 of its 0.5 cores (70%, past BusyUtilization): their waiting may be their own load"},
		{"pressure not exported", 0.25, math.NaN(), math.NaN(), 4, "Healthy", 1,
			"no CPU pressure series (a cgroup v1 node): no evidence, not health"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustPolicy(t, "artt", DefaultOptions())
			s := waitingPair(0.25, 0, 0)
			if _, err := p.Allocate(s); err != nil {
				t.Fatal(err)
			}
			s = waitingPair(c.cpu, c.waiting, c.throttled)
			s.Nodes[1].CPU = c.nodeCPU
			s.At = s.At.Add(15 * time.Second)
			a, changed, err := p.(*ARTT).Protect(s)
			if err != nil {
				t.Fatal(err)
			}
			r, _ := a.Route("B")
			if c.wantHealth == "Healthy" {
				if changed {
					t.Errorf("the fast path re-routed (%s)", c.why)
				}
				return
			}
			if !changed || r.Groups[1].Health != c.wantHealth {
				t.Fatalf("changed %v, n2 %v, want %s at once (%s)", changed, r.Groups, c.wantHealth, c.why)
			}
			if got := groupShare(t, a, "B", "n2"); got > c.maxShare+1e-9 {
				t.Errorf("n2's share %v, want at most %v (%s)", got, c.maxShare, c.why)
			}
		})
	}
}

func TestARTTRestoresARecoveredGroupGradually(t *testing.T) {
	p := mustPolicy(t, "artt", DefaultOptions()).(*ARTT)
	at := time.Unix(100, 0)
	observe := func(s traffic.Snapshot, sec int) traffic.Allocation {
		t.Helper()
		s.At = at.Add(time.Duration(sec) * time.Second)
		a, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	observe(waitingPair(0.25, 0, 0), 0)
	observe(waitingPair(0.25, 0.5, 0), 15) // stretched 3×: cut
	var a traffic.Allocation
	for sec := 30; sec <= 75; sec += 15 { // good for 45 s: Healthy again
		a = observe(waitingPair(0.25, 0, 0), sec)
	}
	r, _ := a.Route("B")
	if r.Groups[1].Health != "Healthy" {
		t.Fatalf("n2 %s after 45 s of good readings, want Healthy", r.Groups[1].Health)
	}
	// Its weight climbs from a third by at most ×1.5 per 30 s: at most a
	// half after 30 s of it, so its share is under the even 0.5.
	if got := groupShare(t, a, "B", "n2"); !(got < 0.4) {
		t.Errorf("n2's share %v just after it recovered, want it still climbing back (under 0.4)", got)
	}
}

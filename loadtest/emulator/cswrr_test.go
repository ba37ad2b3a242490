package emulator

import (
	"math"
	"testing"
)

// A58's weight, worked by hand: qps ÷ (utilisation + eps ÷ qps) at penalty
// 1. 100 requests per second at 50% CPU weigh 200; at 80% CPU, 125; with
// 10 errors per second on top, 100 ÷ (0.8 + 0.1) = 111.1.
func TestCSWRRWeightFromLoadReports(t *testing.T) {
	for _, c := range []struct {
		qps, util, eps, want float64
	}{
		{100, 0.5, 0, 200},
		{100, 0.8, 0, 125},
		{100, 0.8, 10, 100 / 0.9},
		{0, 0.5, 0, 0}, // no requests: no weight
		{100, 0, 0, 0}, // no utilisation: no weight
		{100, math.NaN(), 0, 0},
	} {
		if got := cswrrWeight(c.qps, c.util, c.eps); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("weight(qps %v, utilisation %v, eps %v) = %v, want %v", c.qps, c.util, c.eps, got, c.want)
		}
	}
}

// A host's weight counts only after the 10 s blackout from its first
// report, and lapses 3 minutes after its last, which starts the blackout
// again.
func TestCSWRRBlackoutAndExpiry(t *testing.T) {
	o := orcaWeight{weight: 200, nonEmptySince: 100, lastUpdate: 100}
	if w := o.weightAt(109.9); w != 0 {
		t.Errorf("9.9 s after the first report: weight %v, want 0 (blackout)", w)
	}
	if w := o.weightAt(110); w != 200 {
		t.Errorf("10 s after the first report: weight %v, want 200", w)
	}
	o.lastUpdate = 200
	if w := o.weightAt(379.9); w != 200 {
		t.Errorf("179.9 s after the last report: weight %v, want 200", w)
	}
	if w := o.weightAt(380); w != 0 || o.nonEmptySince != 0 {
		t.Errorf("3 min after the last report: weight %v, since %v; want 0 and the blackout restarted", w, o.nonEmptySince)
	}
}

// The round robin follows the weights, and a host without one gets the
// median of the others'.
func TestCSWRRSchedulesByWeightWithTheMedianForUnknownHosts(t *testing.T) {
	e := &Emulator{nodes: []*node{{}}}
	c := &component{}
	u := &envoyCluster{comp: c, orca: []orcaWeight{
		{weight: 300, nonEmptySince: 1, lastUpdate: 50},
		{weight: 100, nonEmptySince: 1, lastUpdate: 50},
		{}, // no report yet: the median of 300 and 100, 200
	}}
	hosts := []*replica{{id: 0}, {id: 1}, {id: 2}}
	e.now = 60
	counts := map[int]int{}
	for range 600 {
		counts[e.pickCSWRR(u, hosts, 1).id]++
	}
	if counts[0] != 300 || counts[1] != 100 || counts[2] != 200 {
		t.Errorf("picks %v, want 300, 100 and 200 of 600", counts)
	}
}

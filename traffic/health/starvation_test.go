package health

import (
	"math"
	"testing"
	"time"
)

// stretchOnly is an observation whose only evidence is a CPU stretch.
func stretchOnly(stretch, peers float64) Observation {
	return Observation{
		P95Ms: math.NaN(), ErrorRate: math.NaN(), PeerP95Ms: math.NaN(), PeerErrorRate: math.NaN(),
		Utilization: 0.2, CostPerRequest: math.NaN(), PeerCostChange: math.NaN(),
		CPUStretch: stretch, PeerCPUStretch: peers,
	}
}

func TestCPUStretchCutsAtTheNextMeasurement(t *testing.T) {
	t0 := time.Unix(0, 0)
	sec := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cases := []struct {
		name           string
		stretch, peers float64
		want           State
		maxWeight      float64
		why            string
	}{
		{"starved by a neighbour", 3, 1, Degraded, 1.0 / 3,
			"its work took three times as long as its limit explains: a third of its capacity is left, so a third of its traffic"},
		{"within the noise", 1.4, 1, Healthy, 1,
			"1.4 is under DegradedCostFactor (1.5): less than a third of the capacity lost"},
		{"every group waits alike", 3, 3, Healthy, 1,
			"the peers' median stretch is the same: a burst on every node is nobody's fault"},
		{"worse than its waiting peers", 4, 2, Degraded, 0.5,
			"twice its peers' stretch"},
		{"unknown", math.NaN(), math.NaN(), Healthy, 1,
			"no CPU pressure series: no evidence either way"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := New(DefaultConfig())
			tr.Observe("g", sec(0), stretchOnly(1, 1))
			st := tr.Observe("g", sec(15), stretchOnly(c.stretch, c.peers))
			if st.State != c.want {
				t.Fatalf("state %s, want %s (%s)", st.State, c.want, c.why)
			}
			if st.Weight > c.maxWeight+1e-12 {
				t.Errorf("weight %v, want at most %v (%s)", st.Weight, c.maxWeight, c.why)
			}
		})
	}
}

func TestAStarvedGroupsCutHoldsWhileItsLoadFitsAgain(t *testing.T) {
	t0 := time.Unix(0, 0)
	sec := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tr := New(DefaultConfig())
	tr.Observe("g", sec(0), stretchOnly(1, 1))
	if st := tr.Observe("g", sec(15), stretchOnly(4, 1)); st.State != Degraded || st.Weight > 0.25 {
		t.Fatalf("after a stretch of 4: %s at %v, want Degraded at most 0.25", st.State, st.Weight)
	}
	// Under a quota, the cut group's smaller load fits: it reads 1.6, then
	// NaN (no CPU used), and neither loosens the cut.
	for i, o := range []Observation{stretchOnly(1.6, 1), stretchOnly(math.NaN(), math.NaN())} {
		if st := tr.Observe("g", sec(30+15*i), o); st.State != Degraded || st.Weight > 0.25 {
			t.Errorf("reading %d: %s at %v, want still Degraded at most 0.25", i, st.State, st.Weight)
		}
	}
	// Good readings for RecoverAfter make it Healthy, its weight climbing
	// from the cut, not jumping back.
	var st Status
	for s := 60; s <= 105; s += 15 {
		st = tr.Observe("g", sec(s), stretchOnly(1, 1))
	}
	if st.State != Healthy || st.Weight > 0.25*1.5+1e-9 {
		t.Errorf("after 45 s of good readings: %s at %v, want Healthy at most one restore step (×1.5) above 0.25", st.State, st.Weight)
	}
}

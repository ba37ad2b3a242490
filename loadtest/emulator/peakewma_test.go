package emulator

import (
	"math"
	"testing"
)

// tower's RttEstimate, worked by hand: a slower sample is taken at once; a
// faster one moves the estimate by 1 − e^(−elapsed/10 s); reading it decays
// it towards 0 the same way.
func TestPeakEWMAJumpsToAPeakAndDecaysWithTau(t *testing.T) {
	u := &envoyCluster{}
	p := &replica{id: 3}
	if got := u.peakEWMACost(p, 0); got != peakEWMADefaultRTT {
		t.Fatalf("a new endpoint costs %v, want the default 30 ms", got)
	}
	u.observeRTT(p, 0.9, 1) // the endpoint turns slow: a 100 ms round trip
	if got := u.estimate(p, 1).rtt; math.Abs(got-0.1) > 1e-12 {
		t.Fatalf("after a 100 ms sample the estimate is %v, want 0.1 at once (peak)", got)
	}
	u.observeRTT(p, 10.99, 11) // 10 s later, a 10 ms round trip
	want := 0.1*math.Exp(-1) + 0.01*(1-math.Exp(-1))
	if got := u.estimate(p, 11).rtt; math.Abs(got-want) > 1e-12 {
		t.Fatalf("10 s after the peak a 10 ms sample gives %v, want %v (one τ)", got, want)
	}
	u.sent(p)
	u.sent(p)
	cost := u.peakEWMACost(p, 21) // 10 s more, two pending
	if want2 := want * math.Exp(-1) * 3; math.Abs(cost-want2) > 1e-12 {
		t.Errorf("cost with two pending after another τ: %v, want estimate × e⁻¹ × 3 = %v", cost, want2)
	}
}

// Each sidecar keeps its own estimates: one caller that saw a pod slow does
// not make another avoid it.
func TestPeakEWMAIsPerProxy(t *testing.T) {
	a, b := &envoyCluster{}, &envoyCluster{}
	p := &replica{id: 0}
	a.observeRTT(p, 0, 0.5)
	if ca, cb := a.peakEWMACost(p, 0.5), b.peakEWMACost(p, 0.5); ca != 0.5 || cb != peakEWMADefaultRTT {
		t.Errorf("costs %v and %v, want 0.5 for the proxy that saw 500 ms and the default for the other", ca, cb)
	}
}

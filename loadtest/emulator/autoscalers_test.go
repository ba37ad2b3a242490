package emulator

import (
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/workload"
)

// Knative's KPA, worked by hand from its Scale: a target of 1 request per
// pod × 0.7 utilisation is 0.7 per pod. Two ready pods holding 1.3 in
// flight are within target; a burst to 7 in flight in the panic window (6 s)
// asks ceil(7 ÷ 0.7) = 10 pods, five times the ready pods, past the 200%
// panic threshold: panic, and 10 at once. When the burst ends, the stable
// window still averages it, and panic mode refuses to go below its most
// until the stable window has passed without a panic.
func TestKPAPanicsOnABurstAndDoesNotScaleDownInPanic(t *testing.T) {
	d := &kpaComponent{target: 1 * kpaTargetUtilization, panicSince: math.NaN()}
	tick := func(now, concurrency float64, ready int) int {
		d.buckets = append(d.buckets, concurrency)
		if keep := int(kpaStableWindow / kpaTick); len(d.buckets) > keep {
			d.buckets = d.buckets[len(d.buckets)-keep:]
		}
		return d.decide(now, ready)
	}
	now := 0.0
	for range 30 { // a minute on target
		now += kpaTick
		if got := tick(now, 1.3, 2); got != 2 {
			t.Fatalf("at %.0fs on target: %d pods, want 2", now, got)
		}
	}
	var got int
	for range 3 { // the panic window fills with the burst
		now += kpaTick
		got = tick(now, 7, 2)
	}
	if math.IsNaN(d.panicSince) || got != 10 {
		t.Fatalf("after a 6 s burst to 7 in flight: %d pods, panic %v; want 10 in panic", got, !math.IsNaN(d.panicSince))
	}
	// The burst is over: 1.3 in flight on 10 ready pods. The panic window
	// asks 2, the stable one (the burst still in it) more, but in panic the
	// count never falls.
	for i := range 29 {
		now += kpaTick
		if got := tick(now, 1.3, 10); got != 10 {
			t.Fatalf("%.0fs after the burst, in panic: %d pods, want 10 held", float64(i+1)*kpaTick, got)
		}
	}
	// A stable window after the last panic tick, panic ends and the count
	// follows the stable window, at most halving per tick (max-scale-down-rate 2).
	for range 2 {
		now += kpaTick
		got = tick(now, 1.3, 10)
	}
	if !math.IsNaN(d.panicSince) || got != 5 {
		t.Errorf("a stable window after the burst: %d pods, panic %v; want 5 (10 halved) out of panic", got, !math.IsNaN(d.panicSince))
	}
}

// KPA's stable mode follows the stable window's average, not a short
// burst: a burst short of the panic threshold moves it only by its share
// of the window.
func TestKPAStableModeAveragesTheWindow(t *testing.T) {
	d := &kpaComponent{target: 0.7, panicSince: math.NaN()}
	for range 29 {
		d.buckets = append(d.buckets, 7) // 10 pods' worth for 58 s
	}
	d.buckets = append(d.buckets, 14) // one 2 s bucket at twice that
	// Stable: (29·7 + 14) ÷ 30 = 7.23 → ceil(10.33) = 11; panic: (7+7+14) ÷ 3
	// = 9.33 → 14 pods, 1.4× the 10 ready, under the 200% threshold.
	if got := d.decide(60, 10); got != 11 || !math.IsNaN(d.panicSince) {
		t.Errorf("decide = %d, panic %v; want 11 in stable mode", got, !math.IsNaN(d.panicSince))
	}
}

// The HPA's replica arithmetic for the two metric types KEDA serves, from
// replica_calculator.go, worked by hand.
func TestHPAReplicaArithmetic(t *testing.T) {
	for _, c := range []struct {
		name string
		got  int
		want int
	}{
		// keda-rps (AverageValue): 130 requests per second at 20 per pod on 4
		// replicas is a usage ratio of 1.625: ceil(130 ÷ 20) = 7.
		{"AverageValue above tolerance", averageValueReplicas(130, 20, 4), 7},
		// 84 at 20 per pod on 4: ratio 1.05, within 10%: keep 4.
		{"AverageValue within tolerance", averageValueReplicas(84, 20, 4), 4},
		// 30 at 20 per pod on 4: ratio 0.375: ceil(1.5) = 2.
		{"AverageValue scale down", averageValueReplicas(30, 20, 4), 2},
		// A Value metric at ratio 1.5 with 3 ready of 5 pods: ceil(4.5) = 5.
		{"Value counts the ready pods", valueReplicas(1.5, 3, 5), 5},
		{"Value within tolerance", valueReplicas(1.08, 3, 5), 5},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d replicas, want %d", c.name, c.got, c.want)
		}
	}
}

// rate() over a window holds window ÷ interval scrapes and extrapolates
// over the intervals between them; irate reads one.
func TestRateWindowMeans(t *testing.T) {
	if got := rateIntervals(60, 15); got != 3 {
		t.Errorf("rate over 1m at 15 s scrapes spans %d intervals, want 3", got)
	}
	if got := rateIntervals(120, 15); got != 7 {
		t.Errorf("rate over 2m at 15 s scrapes spans %d intervals, want 7", got)
	}
	if got := rateIntervals(15, 15); got != 1 {
		t.Errorf("a window of one interval spans %d, want 1", got)
	}
	xs := []float64{1, 2, 3, 4, 5}
	if got := windowMean(xs, 4, 3); got != 4 {
		t.Errorf("mean of the last three = %v, want 4", got)
	}
	if got := windowMean(xs, 1, 3); !math.IsNaN(got) {
		t.Errorf("a window longer than the run so far = %v, want NaN", got)
	}
}

// The HPA keeps the replicas it began with through its scale-down window:
// it records them as its first recommendation when it is made, a poll
// before the load's first (Kubernetes' recordInitialRecommendation). Three
// pods at 1% of their request are asked down to one at the first poll,
// and go there only once the window from the HPA's making has passed.
func TestTheHPAKeepsItsFirstReplicasThroughItsWindow(t *testing.T) {
	sc := scrapeScenario(t)
	sc.Duration.Duration = 400 * time.Second
	sc.Application.Components[0].Replicas, sc.Application.Components[0].MaxReplicas = 3, 3
	ph := DrawPhases(sc)
	ph.FirstPoll = 15 // the HPA was made at 0 s
	r := runWith(t, sc, workload.Constant(10), Options{Phases: &ph})
	window := sc.Control.ScaleDownWindow.Seconds()
	for _, p := range r.Series {
		got := p.Replicas["backend"]
		if p.T < window && got != 3 {
			t.Fatalf("at %.0f s, inside the window from the HPA's making: %d pods, want the 3 it began with", p.T, got)
		}
		if p.T > window+sc.Control.PollingInterval.Seconds() && got != 1 {
			t.Fatalf("at %.0f s, past the window: %d pods, want 1", p.T, got)
		}
	}
}

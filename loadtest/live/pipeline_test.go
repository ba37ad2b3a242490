package live

import (
	"context"
	"testing"
	"time"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/loadtest/live/backend"
	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// A scaled component's pods reuse their slots' addresses: the second pod
// in a slot is Healthy in istiod when the address turns Healthy again
// after it started, not when the slot's first pod did; a pod started while
// istiod still listed the slot's previous pod has no such time.
func TestIstiodsHealthyTimesFollowEachPodInASlot(t *testing.T) {
	at := func(s float64) time.Time { return time.Unix(1000, 0).Add(time.Duration(s * float64(time.Second))) }
	w := &stageWatch{inIstiod: map[string][]time.Time{}, healthy: map[string]bool{}}
	const slot, other = "10.80.1.8", "10.80.1.9"
	w.sawHealthy([]string{slot}, at(10))         // the slot's first pod
	w.sawHealthy([]string{slot, other}, at(11))  // still listed: no new time
	w.sawHealthy([]string{other}, at(40))        // the first pod gone
	w.sawHealthy([]string{other, slot}, at(62))  // the second pod, started at 50
	w.sawHealthy([]string{other, slot}, at(100)) // a third pod, started at 90 while istiod still listed the second
	if got := w.turnedHealthy(slot, at(0)); !got.Equal(at(10)) {
		t.Errorf("the first pod: %v, want %v", got, at(10))
	}
	if got := w.turnedHealthy(slot, at(50)); !got.Equal(at(62)) {
		t.Errorf("the second pod: %v, want %v (the slot's first time is %v)", got, at(62), at(10))
	}
	if got := w.turnedHealthy(slot, at(90)); !got.IsZero() {
		t.Errorf("the third pod: %v, want none: the address never turned Healthy after it started", got)
	}
	if got := w.turnedHealthy(other, at(5)); !got.Equal(at(11)) {
		t.Errorf("another address: %v, want %v", got, at(11))
	}
}

// A pod the run stopped before its end is no longer there to ask: its
// first arrival is read from what Prometheus scraped while it ran.
func TestFirstArrivalsOfStoppedPodsAreReadFromPrometheus(t *testing.T) {
	if _, err := promtest.Binary(); err != nil {
		if promtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	now := time.Now().Truncate(time.Second)
	stopped, running := now.Add(-8*time.Minute+300*time.Millisecond), now.Add(-2*time.Minute+700*time.Millisecond)
	var h promtest.History
	series := func(pod string, from, to, first time.Time) {
		for t := from; t.Before(to); t = t.Add(5 * time.Second) {
			v := 0.0
			if !t.Before(first) {
				v = float64(first.UnixNano()) / 1e9
			}
			h.Gauge(backend.FirstArrivalGauge, `namespace="live-0",pod="`+pod+`"`, t, v)
		}
	}
	series("backend-a", now.Add(-9*time.Minute), now.Add(-5*time.Minute), stopped)
	series("backend-b", now.Add(-3*time.Minute), now, running)
	series("backend-c", now.Add(-3*time.Minute), now, now.Add(time.Hour)) // never sent one
	h.Gauge(backend.FirstArrivalGauge, `namespace="live-1",pod="backend-d"`, now.Add(-time.Minute), float64(now.Unix()))
	server, err := promtest.StartWithHistory(t.TempDir(), &h, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Stop() })
	client, err := promapi.NewClient(promapi.Config{Address: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := firstArrivals(context.Background(), promv1.NewAPI(client), "live-0", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Time{"backend-a": stopped, "backend-b": running}
	if len(got) != len(want) {
		t.Errorf("first arrivals of %d pods (%v), want %d", len(got), got, len(want))
	}
	for pod, at := range want {
		if d := got[pod].Sub(at); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("%s: first arrival %v, want %v", pod, got[pod], at)
		}
	}
}

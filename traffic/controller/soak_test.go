package controller

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/stats"
)

// TestTrafficSoak runs artt-traffic for ARTT_SOAK (a duration such as 30m;
// make soak) on envtest with Prometheus while applications come and go: a
// new one (frontend calling backend, a pod of each per node) every minute,
// the oldest of more than five deleted. Every five minutes the leader
// steps down and a standby, started then, takes over. Every 30 s it
// samples the heap after a GC, the goroutines and what the leader tracks;
// at the end it reports the least-squares slopes after the first ten
// minutes (warm-up, and the grace of --forget-after, here two minutes,
// filled), and the largest share change each new leader wrote against
// the rules in force. It asserts only what must hold at any length: no
// new leader moves a share past the bound, and the components tracked come
// back to the live ones.
func TestTrafficSoak(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("ARTT_SOAK"))
	if err != nil || d <= 0 {
		t.Skip("set ARTT_SOAK to a duration, such as 30m (make soak)")
	}
	needCluster(t)
	const forget = 2 * time.Minute
	var live []string // namespaces with an application, oldest first
	churn := func(i int) {
		ns := fmt.Sprintf("soak-%d", i)
		createApp(t, ns)
		live = append(live, ns)
		if len(live) > 5 {
			removeApp(t, live[0])
			live = live[1:]
		}
		exporter.Set(clusterSeries(nil, append(slices.Clone(testNamespaces), live...)...))
	}
	// The instances are stopped here, not kept for the test's cleanup: the
	// heap sampled is then the running leader's and standby's, not every
	// stopped one's.
	opts := instanceOptions{leaderElect: true, quiet: true, forgetAfter: forget, stoppedByCaller: true}
	leader := start(t, opts)
	defer func() { leader.stop() }()
	began := time.Now()
	var minutes, heaps, goroutines []float64
	var worst []float64 // per leader change, the largest share step written
	nextChurn, nextChange, nextSample := time.Duration(0), 5*time.Minute, 30*time.Second
	for time.Since(began) < d {
		now := time.Since(began)
		switch {
		case now >= nextChurn:
			churn(int(nextChurn / time.Minute))
			nextChurn += time.Minute
		case now >= nextChange:
			before := rulesOf(t, live)
			standby := start(t, opts)
			leader.stop()
			leader = standby
			// The lease passes and the new leader's first cycle writes
			// every rule (it has written none yet).
			waitFor(t, 60*time.Second, "the new leader's first writes", func() bool {
				return counter(t, leader.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "written"}) >= float64(calledComponents(t))
			})
			worst = append(worst, largestStep(before, rulesOf(t, live)))
			t.Logf("%5.1f min: leader change; largest share step written ×%.3f", now.Minutes(), worst[len(worst)-1])
			nextChange += 5 * time.Minute
		case now >= nextSample:
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			tracked := counter(t, leader.reg, "artt_traffic_tracked", map[string]string{"kind": "components"})
			t.Logf("%5.1f min: heap in use %.2f MiB, goroutines %d, components tracked %v (called components live %d)",
				now.Minutes(), float64(m.HeapInuse)/(1<<20), runtime.NumGoroutine(), tracked, calledComponents(t))
			if now >= 10*time.Minute {
				minutes = append(minutes, now.Minutes())
				heaps = append(heaps, float64(m.HeapInuse)/1024)
				goroutines = append(goroutines, float64(runtime.NumGoroutine()))
			}
			nextSample += 30 * time.Second
		default:
			time.Sleep(200 * time.Millisecond)
		}
	}
	if len(minutes) >= 2 {
		t.Logf("after warm-up: heap slope %.2f KiB per minute (mean %.0f KiB), goroutines slope %.3f per minute (mean %.1f), over %d samples",
			stats.Slope(minutes, heaps), stats.Mean(heaps), stats.Slope(minutes, goroutines), stats.Mean(goroutines), len(minutes))
	}
	for i, w := range worst {
		if w > 1.5*1.15 {
			t.Errorf("leader change %d wrote a share step of ×%.3f, past the bound ×1.5 (and the whole percents' rounding)", i+1, w)
		}
	}
	for _, ns := range live {
		removeApp(t, ns)
	}
	exporter.Set(clusterSeries(nil, testNamespaces...))
	time.Sleep(forget + 10*time.Second)
	if got, want := counter(t, leader.reg, "artt_traffic_tracked", map[string]string{"kind": "components"}), calledComponents(t); got != float64(want) {
		t.Errorf("components tracked %v %s after the last application left, want the %d called components live", got, forget+10*time.Second, want)
	}
}

// calledComponents counts the managed Deployments some other one calls
// (the backends): the components ARTT routes, so tracks.
func calledComponents(t *testing.T) int {
	t.Helper()
	var deps appsv1.DeploymentList
	if err := k8s.List(testScope, &deps, client.MatchingLabels{ManagedLabel: "true"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range deps.Items {
		if d.Name == "backend" {
			n++
		}
	}
	return n
}

// removeApp deletes an application's Deployments and pods.
func removeApp(t *testing.T, ns string) {
	t.Helper()
	for _, obj := range []client.Object{&appsv1.Deployment{}, &corev1.Pod{}} {
		if err := k8s.DeleteAllOf(testScope, obj, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
	}
}

// rulesOf reads the backend rules' shares by namespace and locality.
func rulesOf(t *testing.T, namespaces []string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, ns := range namespaces {
		if _, err := getRule(ns, "artt-backend"); err == nil {
			out[ns] = groupSharesOf(t, ns, "artt-backend")
		}
	}
	return out
}

// largestStep is the largest factor by which a share moved between two
// readings of the same rules, ignoring shares under 2% (a whole percent of
// rounding is a factor there).
func largestStep(before, after map[string]map[string]float64) float64 {
	worst := 1.0
	for ns, shares := range before {
		for l, was := range shares {
			now, ok := after[ns][l]
			if !ok || was < 0.02 || now < 0.02 {
				continue
			}
			worst = math.Max(worst, math.Max(now/was, was/now))
		}
	}
	return worst
}

package e2e_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/artt-dev/artt/test/e2e"
)

// scaledObject is deploy/examples/scaledobject.yaml adapted only in its
// addresses (artt-scaler and Prometheus run on loopback here), plus a
// scale-down stabilisation window shortened for the test.
func scaledObject(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../deploy/examples/scaledobject.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for from, to := range map[string]string{
		"artt-scaler.artt-system.svc.cluster.local:6000": scalerGRPC,
		"http://prometheus-server.monitoring.svc:80":     prom.URL,
	} {
		if !strings.Contains(doc, from) {
			t.Fatalf("the example no longer names %s", from)
		}
		doc = strings.ReplaceAll(doc, from, to)
	}
	const behavior = "      behavior:\n"
	if !strings.Contains(doc, behavior) {
		t.Fatal("the example no longer sets the HPA's behavior")
	}
	doc = strings.Replace(doc, behavior, behavior+`        scaleDown:
          stabilizationWindowSeconds: 5
`, 1)
	path := filepath.Join(work, "scaledobject.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(assets, "kubectl"), append([]string{"--kubeconfig=" + kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// threshold reads the θ artt-scaler serves for the ScaledObject from its
// /metrics.
func threshold(t *testing.T) float64 {
	t.Helper()
	return metricValue(t, scalerHTTP, `artt_scaler_threshold_percent{namespace="shop",scaledobject="web"}`)
}

// metricValue reads one series from an artt-scaler's /metrics (NaN when
// absent); series names it with its labels in Prometheus' sorted order.
func metricValue(t *testing.T, addr, series string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, series+" ") {
			v, err := strconv.ParseFloat(line[len(series)+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	return math.NaN()
}

func replicas(ctx context.Context) int32 {
	var d appsv1.Deployment
	if err := k8s.Get(ctx, types.NamespacedName{Namespace: "shop", Name: "web"}, &d); err != nil || d.Spec.Replicas == nil {
		return -1
	}
	return *d.Spec.Replicas
}

// watchPeakReplicas samples the Deployment's replicas every 250 ms until
// the returned function is called, which returns the most seen.
func watchPeakReplicas() func() int32 {
	done := make(chan struct{})
	result := make(chan int32)
	go func() {
		var highest int32
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			highest = max(highest, replicas(testScope))
			select {
			case <-done:
				result <- highest
				return
			case <-tick.C:
			}
		}
	}()
	return func() int32 {
		close(done)
		return <-result
	}
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < timeout {
		if cond() {
			return time.Since(start)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s (logs in %s)", what, timeout, work)
	return 0
}

// steady waits until the Deployment has held want replicas, with as many
// ready pods, for hold.
func steady(t *testing.T, want int32, hold, timeout time.Duration) time.Duration {
	t.Helper()
	return steadyAt(t, func() int32 { return want }, fmt.Sprintf("%d replicas", want), hold, timeout)
}

// podsWorth is the count a demand of cores needs at θ percent of each pod's
// CPU request, and never less than one.
func podsWorth(cores, theta float64) int32 {
	return int32(math.Max(1, math.Ceil(cores/(e2e.CPURequest*theta/100))))
}

// steadyAtTheta waits until the Deployment has held the count cores need at
// artt-scaler's θ of the moment for hold. θ is adaptive and keeps moving
// after the demand changes (a calmer window raises it), so the count is
// asked of each reading rather than of the θ seen when the wait began. It
// returns the time taken, the count held and the θ of the last reading.
func steadyAtTheta(t *testing.T, cores float64, hold, timeout time.Duration) (time.Duration, int32, float64) {
	t.Helper()
	var want int32
	var theta float64
	took := steadyAt(t, func() int32 {
		theta = threshold(t)
		want = podsWorth(cores, theta)
		return want
	}, fmt.Sprintf("the count %.1f cores need at θ", cores), hold, timeout)
	return took, want, theta
}

// steadyAt waits until the Deployment has held want() replicas, with as
// many ready pods, for hold; the hold starts again whenever want() moves.
func steadyAt(t *testing.T, want func() int32, what string, hold, timeout time.Duration) time.Duration {
	t.Helper()
	var since time.Time
	var held int32
	return waitFor(t, timeout, fmt.Sprintf("%s, ready and steady for %s", what, hold), func() bool {
		n := want()
		pods, err := app.ReadyPods(testScope)
		if err != nil || replicas(testScope) != n || len(pods) != int(n) || n != held {
			since, held = time.Time{}, n
			return false
		}
		if since.IsZero() {
			since = time.Now()
		}
		return time.Since(since) >= hold
	})
}

func TestKEDAScalesTheDeploymentByARTTScalersAnswers(t *testing.T) {
	needCluster(t)
	waitFor(t, 60*time.Second, "the external metrics APIService Available", func() bool {
		api := &unstructured.Unstructured{}
		api.SetAPIVersion("apiregistration.k8s.io/v1")
		api.SetKind("APIService")
		if err := k8s.Get(testScope, types.NamespacedName{Name: "v1beta1.external.metrics.k8s.io"}, api); err != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(api.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Available" && m["status"] == "True" {
				return true
			}
		}
		return false
	})
	kubectl(t, "apply", "-f", scaledObject(t))
	waitFor(t, 60*time.Second, "KEDA created HPA keda-hpa-web", func() bool {
		hpa := &unstructured.Unstructured{}
		hpa.SetAPIVersion("autoscaling/v2")
		hpa.SetKind("HorizontalPodAutoscaler")
		return k8s.Get(testScope, types.NamespacedName{Namespace: "shop", Name: "keda-hpa-web"}, hpa) == nil
	})

	// One pod using 0.3 of its 0.5 cores: at θ = 80 that is 0.3 ÷ (0.8 ×
	// 0.5) = 0.75 pods' worth, so the HPA keeps ceil(0.75) = 1.
	steady(t, 1, 10*time.Second, 2*time.Minute)
	waitFor(t, 2*time.Minute, "artt-scaler serving a threshold", func() bool { return !math.IsNaN(threshold(t)) })

	t.Run("scale up to ceil(demand ÷ θ of a pod)", func(t *testing.T) {
		// The workload now needs 1 core in all: 1 ÷ (0.5 × θ/100) pods'
		// worth, and the HPA settles at its ceiling. On the way the count
		// never passes it by more than one: the pods form leaves the HPA's
		// own count of ready pods out of the arithmetic.
		thetaBefore := threshold(t)
		peak := watchPeakReplicas()
		app.SetCPU(1.0)
		took, want, theta := steadyAtTheta(t, 1.0, 15*time.Second, 4*time.Minute)
		highest := peak()
		t.Logf("θ = %.1f%%: %d replicas, steady %s after the CPU rose (including 15 s held); at most %d on the way", theta, want, took, highest)
		// The most the demand needed at the lower θ seen.
		needed := podsWorth(1.0, math.Min(thetaBefore, theta))
		if highest > max(want, needed)+1 {
			t.Errorf("the count reached %d after the scale-up; the demand needs %d (θ %.1f–%.1f%%), at most one more allowed", highest, max(want, needed), thetaBefore, theta)
		}
		ruleFollowsPods(t, 30*time.Second)
		if got := threshold(t); got != theta {
			t.Logf("θ moved to %.1f during the scale-up", got)
		}
		u := 100 * 1.0 / (float64(want) * e2e.CPURequest)
		if ratio := u / theta; math.Ceil(float64(want)*ratio) != float64(want) && math.Abs(ratio-1) > 0.1 {
			t.Errorf("at %d replicas u = %.1f%% and θ = %.1f%%: docs/scaler.md's formula would not hold here", want, u, theta)
		}
	})

	t.Run("what users see", func(t *testing.T) {
		out := kubectl(t, "get", "scaledobject,hpa", "-n", "shop")
		t.Logf("kubectl get scaledobject,hpa -n shop:\n%s", out)
		for _, want := range []string{"scaledobject.keda.sh/web", "keda-hpa-web", "/1 (avg)"} {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl get output lacks %q", want)
			}
		}
		// READY and ACTIVE are the ScaledObject's 6th and 7th columns.
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 6 && f[0] == "scaledobject.keda.sh/web" && (f[5] != "True" || f[6] != "True") {
				t.Errorf("ScaledObject READY %s ACTIVE %s, want True True", f[5], f[6])
			}
		}
		desc := kubectl(t, "describe", "hpa", "keda-hpa-web", "-n", "shop")
		if !strings.Contains(desc, `"s0-artt-pods" (target average value)`) {
			t.Errorf("kubectl describe hpa does not show the external metric s0-artt-pods against an AverageValue target:\n%s", desc)
		}
	})

	t.Run("scale down after the stabilisation window", func(t *testing.T) {
		app.SetCPU(0.3)
		took, want, theta := steadyAtTheta(t, 0.3, 10*time.Second, 4*time.Minute)
		t.Logf("θ = %.1f%%: back to %d replicas %s after the CPU fell (including 10 s held)", theta, want, took)
		ruleFollowsPods(t, 30*time.Second)
	})

	t.Run("offered load: arrivals the pods do not serve", func(t *testing.T) {
		// 0.3 cores serve 100 requests per second (3 ms each). Now three
		// times as many arrive while the pods serve no more and their CPU
		// stays flat: the CPU alone would keep 1 replica; the arrivals need
		// 3 × 0.3 = 0.9 cores, at least ceil(0.9 / (0.5 × θ / 100)) pods at
		// θ ≤ maxThreshold. (This exporter's per-pod counters are not
		// conserved while pods come and go, so the measured rates, and the
		// count, move around it: the test asks for at least that count.)
		app.SetArrivals(3)
		defer app.SetArrivals(1)
		want := int32(math.Ceil(0.9 / (e2e.CPURequest * 80 / 100)))
		var held time.Time
		took := waitFor(t, 3*time.Minute, fmt.Sprintf("at least %d ready replicas for 15 s", want), func() bool {
			pods, err := app.ReadyPodsOf(testScope, "web")
			if err != nil || len(pods) < int(want) {
				held = time.Time{}
				return false
			}
			if held.IsZero() {
				held = time.Now()
			}
			return time.Since(held) >= 15*time.Second
		})
		t.Logf("at least %d replicas (%d now, θ = %.1f%%) %s after three times the served requests began to arrive, CPU flat (including 15 s held)",
			want, replicas(testScope), threshold(t), took)
	})

	t.Run("fallback while Prometheus is down, then normal scaling", func(t *testing.T) {
		if err := prom.Stop(); err != nil {
			t.Fatal(err)
		}
		// artt-scaler answers Unavailable; after failureThreshold (3)
		// failed polls KEDA serves the fallback: 4 replicas.
		took := steady(t, 4, 5*time.Second, 3*time.Minute)
		t.Logf("fallback to 4 replicas %s after Prometheus stopped", took)
		if err := prom.Restart(); err != nil {
			t.Fatal(err)
		}
		took, want, theta := steadyAtTheta(t, 0.3, 10*time.Second, 5*time.Minute)
		t.Logf("θ = %.1f%%: back to %d replicas %s after Prometheus returned", theta, want, took)
	})

	t.Run("push form: the HPA target follows θ", pushForm)
	t.Run("mutual TLS with a TriggerAuthentication", mutualTLS)
}

package controller

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/internal/testcluster"
)

// The real components every test here uses: kube-apiserver and etcd through
// envtest (binaries from hack/build-test-binaries.sh, found through
// KUBEBUILDER_ASSETS), Istio's CRDs from the istio.io/api module, and
// Debian's Prometheus scraping an exporter that emulates cAdvisor, Istio
// and blackbox-exporter series.
var (
	cfg       *rest.Config
	k8s       client.Client
	ic        istioclient.Interface
	prom      *promtest.Server
	exporter  *promtest.Exporter
	missing   string
	testScope = context.Background()
	// etcdURL is envtest's etcd client URL, where it also serves /metrics.
	etcdURL string
	// testEnv is the control plane, for tests that start processes
	// needing a kubeconfig of their own.
	testEnv *envtest.Environment
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	// controller-runtime's own messages at warning and above, as artt-traffic
	// gives it a logger (without one it prints a stack and drops them).
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		missing = "KUBEBUILDER_ASSETS is not set (hack/build-test-binaries.sh prints the directory)"
		return m.Run()
	}
	if _, err := promtest.Binary(); err != nil {
		missing = err.Error()
		return m.Run()
	}
	crds, err := testcluster.IstioCRDs()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cp, err := testcluster.StartControlPlane(testcluster.ControlPlaneOptions{CRDs: []string{crds}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cp.Stop()
	testEnv, cfg = cp.Env, cp.Config
	// No client-side rate limit, as ctrl.GetConfig gives artt-traffic: the
	// apiserver's priority and fairness governs.
	cfg.QPS = -1
	etcdURL = testEnv.ControlPlane.Etcd.URL.String()
	s, err := Scheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if ic, err = istioclient.NewForConfig(cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "artt-traffic-prom-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	exporter = promtest.NewExporter(clusterSeries(nil, testNamespaces...))
	var stop func()
	prom, stop, err = promtest.StartWithExporter(dir, exporter, time.Second, `istio_requests_total{namespace="shop"}`, 3)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	return m.Run()
}

func needCluster(t *testing.T) {
	t.Helper()
	if cfg != nil && prom != nil {
		return
	}
	if promtest.Required() {
		t.Fatalf("real components required but missing: %s", missing)
	}
	t.Skipf("skipping: %s", missing)
}

// The emulated cluster: nodes n1 and n2 are fast, n3 needs twice the CPU
// per request; the link n2 ↔ n3 is slow (20 ms one way, the others 0.5 ms).
// In every namespace, frontend (one pod per node) calls backend (one pod per
// node) at 150 requests per second.
var testNodes = []string{"n1", "n2", "n3"}

func oneWayMs(a, b string) float64 {
	if (a == "n2" && b == "n3") || (a == "n3" && b == "n2") {
		return 20
	}
	return 0.5
}

// testNamespaces each hold one test's application.
var testNamespaces = []string{"shop", "user", "dry", "conflict", "leader", "outage", "protect", "midrun", "apiout", "fence", "monitored", "topo", "cached", "restart"}

// clusterSeries are the exporter's series for the namespaces; slowed
// multiplies the CPU per request of the pods it names ("namespace/pod").
func clusterSeries(slowed map[string]float64, namespaces ...string) []promtest.Series {
	var s []promtest.Series
	for _, a := range testNodes {
		for _, b := range testNodes {
			if a != b {
				s = append(s, promtest.Series{Name: "probe_duration_seconds", Labels: fmt.Sprintf(`source_node=%q,target_node=%q`, a, b), Value: 2 * oneWayMs(a, b) / 1000})
			}
		}
	}
	for _, ns := range namespaces {
		for _, n := range testNodes {
			cost := 0.005
			if n == "n3" {
				cost = 0.010
			}
			for _, w := range []struct {
				name string
				rps  float64
				cost float64
			}{{"frontend", 50, 0.001}, {"backend", 50, cost}} {
				pod := fmt.Sprintf("%s-%s", w.name, n)
				factor := 1.0
				if f, ok := slowed[ns+"/"+pod]; ok {
					factor = f
				}
				s = append(s,
					promtest.Series{Name: "container_cpu_usage_seconds_total", Labels: fmt.Sprintf(`namespace=%q,pod=%q,container="app"`, ns, pod), Rate: w.rps * w.cost * factor},
					promtest.Series{Name: "istio_requests_total", Labels: fmt.Sprintf(`reporter="destination",namespace=%q,pod=%q,response_code="200"`, ns, pod), Rate: w.rps},
				)
			}
		}
		s = append(s, promtest.Series{Name: "istio_requests_total", Labels: fmt.Sprintf(
			`reporter="source",namespace=%q,pod="frontend-n1",source_workload="frontend",source_workload_namespace=%q,destination_workload="backend",destination_workload_namespace=%q,response_code="200"`, ns, ns, ns), Rate: 150})
	}
	return s
}

// testQueries are the defaults, with the probe job left out (the test's
// Prometheus names its job "test").
func testQueries() Queries {
	q := DefaultQueries()
	q.Delay = `avg by (source_node, target_node) (probe_duration_seconds) * 1000 / 2`
	return q
}

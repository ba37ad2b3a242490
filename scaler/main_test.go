package scaler

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/internal/promtest"
)

// prom is the Prometheus started for this package's tests, scraping
// exporter; nil when the binary is missing and tests skip.
var (
	prom        *promtest.Server
	promMissing string
)

// series is one emulated time series: a counter growing at rate per second,
// or a gauge holding value.
type series struct {
	name, labels string
	rate, value  float64
}

// exporter serves cAdvisor, kube-state-metrics and Istio series for a small
// shop namespace. Counters are rate × seconds since start, computed at scrape
// time, so rate() over them is exact.
type exporter struct {
	start time.Time
	mu    sync.Mutex
	all   []series
}

func (e *exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	elapsed := time.Since(e.start).Seconds()
	var b strings.Builder
	for _, s := range e.all {
		v := s.value
		if s.rate != 0 {
			v = s.rate * elapsed
		}
		fmt.Fprintf(&b, "%s{%s} %g\n", s.name, s.labels, v)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

// The emulated workload "web" in namespace "shop": two pods using 0.3 cores
// each out of 0.5 requested (60% utilisation), serving 20 requests per
// second. A workload "web-api" and cAdvisor's pause container must not count.
func shopSeries() []series {
	cpu := "container_cpu_usage_seconds_total"
	req := "kube_pod_container_resource_requests"
	istio := "istio_requests_total"
	return []series{
		{name: cpu, labels: `namespace="shop",pod="web-7d9f8c6b5d-abcde",container="app"`, rate: 0.3},
		{name: cpu, labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",container="app"`, rate: 0.3},
		{name: cpu, labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",container="POD"`, rate: 0.01},
		{name: cpu, labels: `namespace="shop",pod="web-api-5c6d7f8b9-xyz12",container="app"`, rate: 4},
		{name: req, labels: `namespace="shop",pod="web-7d9f8c6b5d-abcde",container="app",resource="cpu",unit="core"`, value: 0.5},
		{name: req, labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",container="app",resource="cpu",unit="core"`, value: 0.5},
		{name: req, labels: `namespace="shop",pod="web-api-5c6d7f8b9-xyz12",container="app",resource="cpu",unit="core"`, value: 2},
		{name: istio, labels: `reporter="destination",destination_workload="web",destination_workload_namespace="shop",response_code="200"`, rate: 12},
		{name: istio, labels: `reporter="destination",destination_workload="web",destination_workload_namespace="shop",response_code="500"`, rate: 8},
		{name: istio, labels: `reporter="source",destination_workload="web",destination_workload_namespace="shop",response_code="200"`, rate: 100},
		{name: istio, labels: `reporter="destination",destination_workload="web-api",destination_workload_namespace="shop",response_code="200"`, rate: 50},
		// "idle": pods exist, no traffic.
		{name: cpu, labels: `namespace="shop",pod="idle-6f7d8c9b5-aaaaa",container="app"`, rate: 0.01},
		{name: req, labels: `namespace="shop",pod="idle-6f7d8c9b5-aaaaa",container="app",resource="cpu",unit="core"`, value: 0.1},
		// "nocpu": traffic, but kube-state-metrics knows no CPU request.
		{name: cpu, labels: `namespace="shop",pod="nocpu-6f7d8c9b5-bbbbb",container="app"`, rate: 0.2},
		{name: istio, labels: `reporter="destination",destination_workload="nocpu",destination_workload_namespace="shop",response_code="200"`, rate: 5},
	}
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if _, err := promtest.Binary(); err != nil {
		promMissing = err.Error()
		return m.Run()
	}
	exp := &exporter{start: time.Now(), all: shopSeries()}
	ts := httptest.NewServer(exp)
	defer ts.Close()
	dir, err := os.MkdirTemp("", "artt-scaler-prom-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	prom, err = promtest.Start(dir, []string{strings.TrimPrefix(ts.URL, "http://")}, time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer prom.Stop()
	if err := waitForSamples(prom.URL, `istio_requests_total{destination_workload="web"}`, 8, 60*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// waitForSamples waits until the selector has at least n samples in the last minute.
func waitForSamples(url, selector string, n int, timeout time.Duration) error {
	c, err := api.NewClient(api.Config{Address: url})
	if err != nil {
		return err
	}
	papi := promv1.NewAPI(c)
	deadline := time.Now().Add(timeout)
	q := fmt.Sprintf("min(count_over_time(%s[1m]))", selector)
	for time.Now().Before(deadline) {
		v, _, err := papi.Query(context.Background(), q, time.Now())
		if vec, ok := v.(model.Vector); err == nil && ok && len(vec) == 1 && int(vec[0].Value) >= n {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("no %d samples of %s within %s", n, selector, timeout)
}

// needProm skips (or, when components are required, fails) without Prometheus.
func needProm(t *testing.T) {
	t.Helper()
	if prom != nil {
		return
	}
	if promtest.Required() {
		t.Fatalf("Prometheus is required but missing: %s", promMissing)
	}
	t.Skipf("Prometheus not installed, skipping (apt-get install prometheus): %s", promMissing)
}

func approx(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

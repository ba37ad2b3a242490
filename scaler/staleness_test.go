package scaler

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/internal/promtest"
)

// webPods is the series of n pods of "web" sharing cpu cores and rps
// requests per second, each pod's counters named after it.
func webPods(names []string, cpu, rps float64) []promtest.Series {
	var out []promtest.Series
	n := float64(len(names))
	for _, p := range names {
		pod := fmt.Sprintf(`namespace="shop",pod="web-7d9f8c6b5d-%s"`, p)
		out = append(out,
			promtest.Series{Name: "container_cpu_usage_seconds_total", Labels: pod + `,container="app"`, Rate: cpu / n},
			promtest.Series{Name: "kube_pod_container_resource_requests", Labels: pod + `,container="app",resource="cpu",unit="core"`, Value: 0.5},
			promtest.Series{Name: "kube_pod_status_ready", Labels: pod + `,condition="true"`, Value: 1},
			promtest.Series{Name: "envoy_http_downstream_rq_total", Labels: pod + `,envoy_http_conn_manager_prefix="inbound_0.0.0.0_8080"`, Rate: rps / n},
			promtest.Series{Name: "istio_requests_total", Labels: pod + `,reporter="destination",destination_workload="web",destination_workload_namespace="shop",response_code="200"`, Rate: rps / n},
		)
	}
	return out
}

// TestDeletedPodsDropOutOfTheRatesAtOnce scales a workload from three pods
// to two, the two taking over the third's load, and reads the default
// queries a few scrapes later, well inside their rate window. A range
// selector keeps the deleted pod's samples for the whole window, so a bare
// sum of rates reads the scale-down as a third more CPU and requests than
// there are; the defaults must read the workload's total.
func TestDeletedPodsDropOutOfTheRatesAtOnce(t *testing.T) {
	needProm(t)
	exp := promtest.NewExporter(webPods([]string{"aaaaa", "bbbbb", "ccccc"}, 0.6, 30))
	server, stop, err := promtest.StartWithExporter(t.TempDir(), exp, time.Second, `kube_pod_status_ready{pod="web-7d9f8c6b5d-ccccc"}`, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	exp.Set(webPods([]string{"aaaaa", "bbbbb"}, 0.6, 30))
	if err := server.WaitForSamples(`kube_pod_status_ready{pod="web-7d9f8c6b5d-aaaaa"}`, 8, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // three scrapes of the two pods: irate sees their new rates

	spec, err := ParseMetadata("shop", "so", map[string]string{
		"prometheusAddress": server.URL, "workload": "web", "step": "1s", "window": "10", "history": "5", "rateWindow": "30s",
	}, server.URL)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(-500 * time.Millisecond)
	m, err := NewPrometheusSource(nil).Fetch(context.Background(), spec, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		series []float64
		want   float64
	}{{"CPU", m.CPU, 0.6}, {"served", m.Demand, 30}, {"arrivals", m.Arrivals, 30}} {
		if got := c.series[len(c.series)-1]; !approx(got, c.want, 0.03) {
			t.Errorf("%s after the scale-down = %v, want %v: a deleted pod's rate is still summed", c.name, got, c.want)
		}
	}
	if !approx(m.CPURequest, 1, 0.001) {
		t.Errorf("CPU request = %v cores, want the two ready pods' 1", m.CPURequest)
	}
	// What a bare sum of rates reads at the same instant: the test's
	// scale-down is inside the window only if this still counts three pods.
	bare := `sum(irate(container_cpu_usage_seconds_total{namespace="shop",pod=~"web-.*"}[30s]))`
	if v := instant(t, server.URL, bare, now); !approx(v, 0.8, 0.05) {
		t.Fatalf("bare sum of rates = %v, want 0.8 (two pods at 0.3 and the deleted one's 0.2): the scale-down is not inside the window", v)
	}
}

// instant evaluates q at the instant at and returns its single value.
func instant(t *testing.T, address, q string, at time.Time) float64 {
	t.Helper()
	c, err := promapi.NewClient(promapi.Config{Address: address})
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := promv1.NewAPI(c).Query(context.Background(), q, at)
	if err != nil {
		t.Fatal(err)
	}
	vec, ok := v.(model.Vector)
	if !ok || len(vec) != 1 {
		t.Fatalf("%s returned %v, want one series", q, v)
	}
	f := float64(vec[0].Value)
	if math.IsNaN(f) {
		t.Fatalf("%s returned NaN", q)
	}
	return f
}

package controller

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/traffic"
)

// The default queries read CPU pressure, throttled periods and the
// quota's period from the series cAdvisor exports, under its names and
// labels: summed over a pod's
// containers (the sidecar's too), leaving out the pod's own cgroup
// (container="") and the pause container, as the CPU query does. From
// them each pod's CPU stretch is what its series say.
func TestCPUWaitingQueriesReadCAdvisorsSeries(t *testing.T) {
	if _, err := promtest.Binary(); err != nil {
		if promtest.Required() {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
	type container struct {
		name                   string
		cpu, waiting, periods  float64
		periodUs               float64 // container_spec_cpu_period; 0: the kubelet's 100 ms
		noWaiting, noThrottled bool
	}
	pods := []struct {
		pod         string
		containers  []container
		wantStretch float64
		why         string
	}{
		{"healthy", []container{{name: "app", cpu: 0.25}, {name: "istio-proxy", cpu: 0.05}}, 1, "no waiting"},
		{"starved", []container{{name: "app", cpu: 0.2, waiting: 0.45}, {name: "istio-proxy", cpu: 0.05, waiting: 0.05}}, 3,
			"0.5 s/s waiting beside 0.25 cores, none of it its quotas'"},
		{"busy", []container{{name: "app", cpu: 0.95, waiting: 0.5, periods: 8}, {name: "istio-proxy", cpu: 0.05}}, 1,
			"its own quota throttled it in 8 periods a second: 0.8 s/s explained"},
		{"short-period", []container{{name: "app", cpu: 0.5, waiting: 0.5, periods: 25, periodUs: 20000}, {name: "istio-proxy", cpu: 0.05, periodUs: 20000}}, 1,
			"25 periods of 20 ms a second: 0.5 s/s explained (read as 100 ms, none would be)"},
	}
	var series []promtest.Series
	for _, p := range pods {
		for _, c := range p.containers {
			labels := `namespace="shop",pod="` + p.pod + `",container="` + c.name + `"`
			series = append(series,
				promtest.Series{Name: "container_cpu_usage_seconds_total", Labels: labels, Rate: c.cpu},
				promtest.Series{Name: "container_pressure_cpu_waiting_seconds_total", Labels: labels, Rate: c.waiting},
				promtest.Series{Name: "container_cpu_cfs_throttled_periods_total", Labels: labels, Rate: c.periods},
				promtest.Series{Name: "container_spec_cpu_period", Labels: labels, Value: cmp.Or(c.periodUs, 100000)},
			)
		}
		// The pod's own cgroup and its pause container, which the queries
		// must leave out.
		for _, c := range []string{"", "POD"} {
			series = append(series, promtest.Series{Name: "container_pressure_cpu_waiting_seconds_total", Labels: `namespace="shop",pod="` + p.pod + `",container="` + c + `"`, Rate: 7})
		}
	}
	prom, stop, err := promtest.StartWithExporter(t.TempDir(), promtest.NewExporter(series), time.Second, "container_pressure_cpu_waiting_seconds_total", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Collector{Client: client, Queries: testQueries(), Timeout: 10 * time.Second}.Collect(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		k := podKey{"shop", p.pod}
		r := traffic.Replica{CPU: m.CPU[k], CPULimit: 1, CPUWaiting: valueOr(m.CPUWaiting, k, math.NaN()), ThrottledPeriods: throttledPeriods(m, k, 1), CFSPeriod: cfsPeriod(m, k)}
		got, ok := traffic.Group{Replicas: []traffic.Replica{r}}.CPUStretch(0.5, 1.5, traffic.CFSPeriod)
		if !ok || math.Abs(got-p.wantStretch) > 0.02*p.wantStretch {
			t.Errorf("%s: stretch %.3f (ok %v) from CPU %.3f, waiting %.3f, throttled %.2f/s; want %.2f (%s)",
				p.pod, got, ok, r.CPU, r.CPUWaiting, r.ThrottledPeriods, p.wantStretch, p.why)
		}
	}
}

// A signal missing for some pods is counted and logged once when it goes
// missing and once when it comes back, not at every collection; a pod
// without it is judged without it.
func TestAMissingSignalIsCountedAndLoggedOnce(t *testing.T) {
	var logs bytes.Buffer
	c := &Controller{tel: newTelemetry(prometheus.NewRegistry()), log: slog.New(slog.NewTextHandler(&logs, nil)), missingSignals: map[string]int{}}
	k1, k2 := podKey{"shop", "a"}, podKey{"shop", "b"}
	v1node := &Measurements{CPU: map[podKey]float64{k1: 0.2, k2: 0.3}, CPUWaiting: map[podKey]float64{k1: 0}, CPUThrottled: map[podKey]float64{k1: 0, k2: 0}, CPUPeriod: map[podKey]float64{k1: 0.1, k2: 0.1}}
	every := &Measurements{CPU: v1node.CPU, CPUWaiting: map[podKey]float64{k1: 0, k2: 0}, CPUThrottled: v1node.CPUThrottled, CPUPeriod: v1node.CPUPeriod}
	for _, m := range []*Measurements{v1node, v1node, v1node} {
		c.reportMissingSignals(m)
	}
	if got := testutil.ToFloat64(c.tel.signalMissing.WithLabelValues("cpu_pressure")); got != 1 {
		t.Errorf("cpu_pressure missing for %v pods, want 1", got)
	}
	if got := testutil.ToFloat64(c.tel.signalMissing.WithLabelValues("cpu_throttling")); got != 0 {
		t.Errorf("cpu_throttling missing for %v pods, want 0", got)
	}
	if n := strings.Count(logs.String(), "signal missing"); n != 1 {
		t.Errorf("%d log lines for three collections missing it, want 1:\n%s", n, logs.String())
	}
	c.reportMissingSignals(every)
	if n := strings.Count(logs.String(), "present for every pod again"); n != 1 || testutil.ToFloat64(c.tel.signalMissing.WithLabelValues("cpu_pressure")) != 0 {
		t.Errorf("after it came back: %d lines saying so, gauge %v; want 1 and 0:\n%s", n, testutil.ToFloat64(c.tel.signalMissing.WithLabelValues("cpu_pressure")), logs.String())
	}
}

// The mean latency is missing only for a pod that has a p95 and no mean:
// a pod that served nothing has neither, and is not counted.
func TestAMissingMeanLatencyIsCountedOnlyWhereAP95Is(t *testing.T) {
	c := &Controller{tel: newTelemetry(prometheus.NewRegistry()), log: slog.New(slog.NewTextHandler(io.Discard, nil)), missingSignals: map[string]int{}}
	served, dropped, idle := podKey{"shop", "a"}, podKey{"shop", "b"}, podKey{"shop", "c"}
	c.reportMissingSignals(&Measurements{
		CPU:         map[podKey]float64{served: 0.2, dropped: 0.3, idle: 0.01},
		Latency:     map[podKey]float64{served: 40, dropped: 55},
		LatencyMean: map[podKey]float64{served: 12},
	})
	if got := testutil.ToFloat64(c.tel.signalMissing.WithLabelValues("latency_mean")); got != 1 {
		t.Errorf("latency_mean missing for %v pods, want 1 (the pod with a p95 and no mean)", got)
	}
}

package deploy_test

import (
	"io"
	"log/slog"
	"regexp"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/artt-dev/artt/deploy/monitoring"
	"github.com/artt-dev/artt/scaler"
	"github.com/artt-dev/artt/traffic/controller"
)

// collecting is a Registerer that keeps what is registered, so the metric
// names a binary exports can be listed before any series exists.
type collecting struct{ collectors []prometheus.Collector }

func (c *collecting) Register(col prometheus.Collector) error {
	c.collectors = append(c.collectors, col)
	return nil
}
func (c *collecting) MustRegister(cols ...prometheus.Collector) {
	c.collectors = append(c.collectors, cols...)
}
func (c *collecting) Unregister(prometheus.Collector) bool { return false }

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// exported lists the artt_ metric names artt-scaler and artt-traffic
// register, with the series names a histogram adds.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	reg := &collecting{}
	scaler.NewTelemetry(reg)
	if _, err := controller.New(nil, nil, nil, controller.Options{}, reg, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range reg.collectors {
		ch := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			if m := fqName.FindStringSubmatch(d.String()); m != nil {
				for _, suffix := range []string{"", "_bucket", "_sum", "_count"} {
					names[m[1]+suffix] = true
				}
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("no metric registered")
	}
	return names
}

// monitoringExprs builds deploy/monitoring, checks that Grafana's sidecar
// will load the dashboard, and returns every PromQL expression of the
// dashboard and the alerts.
func monitoringExprs(t *testing.T) map[string]string {
	t.Helper()
	m := build(t, "monitoring")
	cm := find(t, m, "ConfigMap", "artt-dashboard")
	if got := field(t, cm, "metadata", "labels", "grafana_dashboard"); got != `"1"` && got != "1" {
		t.Errorf("dashboard ConfigMap label grafana_dashboard = %q, want 1 (Grafana's sidecar loads labelled ConfigMaps)", got)
	}
	find(t, m, "PrometheusRule", "artt")
	find(t, m, "PrometheusRule", "artt-recording")
	exprs, err := monitoring.Expressions()
	if err != nil {
		t.Fatal(err)
	}
	if len(exprs) < 25 {
		t.Fatalf("only %d expressions found", len(exprs))
	}
	return exprs
}

var arttMetric = regexp.MustCompile(`\bartt_[a-z_]+`)

// Every metric the dashboard and the alerts read is one the binaries
// export: a renamed metric breaks this test, not an operator's dashboard.
func TestMonitoringReadsExportedMetrics(t *testing.T) {
	names := exported(t)
	for where, expr := range monitoringExprs(t) {
		for _, m := range arttMetric.FindAllString(expr, -1) {
			if !names[m] {
				t.Errorf("%s reads %s, which neither artt-scaler nor artt-traffic exports", where, m)
			}
		}
	}
}

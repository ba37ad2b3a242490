package deploy_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"regexp"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/kustomize/kyaml/yaml"

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

// monitoringExprs builds deploy/monitoring and returns every PromQL
// expression in its dashboard and alerts, by where it stands.
func monitoringExprs(t *testing.T) map[string]string {
	t.Helper()
	m := build(t, "monitoring")
	cm := find(t, m, "ConfigMap", "artt-dashboard")
	if got := field(t, cm, "metadata", "labels", "grafana_dashboard"); got != `"1"` && got != "1" {
		t.Errorf("dashboard ConfigMap label grafana_dashboard = %q, want 1 (Grafana's sidecar loads labelled ConfigMaps)", got)
	}
	raw, err := cm.Pipe(yaml.Lookup("data", "artt.json"))
	if err != nil || raw == nil {
		t.Fatal("the ConfigMap has no artt.json")
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(raw.YNode().Value), &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	exprs := map[string]string{}
	for _, p := range dash.Panels {
		for i, tg := range p.Targets {
			exprs["dashboard panel "+p.Title+" target "+string(rune('A'+i))] = tg.Expr
		}
	}
	rule := find(t, m, "PrometheusRule", "artt")
	groups, err := rule.Pipe(yaml.Lookup("spec", "groups"))
	if err != nil || groups == nil {
		t.Fatal("the PrometheusRule has no groups")
	}
	gs, _ := groups.Elements()
	for _, g := range gs {
		rules, _ := g.Pipe(yaml.Lookup("rules"))
		rs, _ := rules.Elements()
		for _, r := range rs {
			expr, err := r.Pipe(yaml.Lookup("expr"))
			if err != nil || expr == nil {
				t.Fatalf("alert %s has no expr", field(t, r, "alert"))
			}
			exprs["alert "+field(t, r, "alert")] = expr.YNode().Value
		}
	}
	if len(exprs) < 20 {
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

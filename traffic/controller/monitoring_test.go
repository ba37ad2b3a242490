package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"

	"github.com/artt-dev/artt/deploy/monitoring"
	"github.com/artt-dev/artt/internal/promtest"
	pb "github.com/artt-dev/artt/proto/externalscaler"
	"github.com/artt-dev/artt/scaler"
	"github.com/artt-dev/artt/scaler/metric"
)

// staticSource answers every poll with the same history.
type staticSource struct{}

func (staticSource) Fetch(context.Context, scaler.Spec, time.Time) (metric.Measurements, error) {
	m := metric.Measurements{CPURequest: 2}
	for i := range 279 {
		d := 100 + 20*math.Sin(float64(i)/7)
		m.Demand = append(m.Demand, d)
		m.CPU = append(m.CPU, d/100)
	}
	return m, nil
}

// The dashboard's panels and the alerts read the series the components
// really export. A Prometheus of its own scrapes artt-traffic's /metrics
// after real cycles and artt-scaler's after real polls; every expression
// must parse, every artt_ metric it names must have series, and every label
// it groups or matches by must be on them.
func TestMonitoringAgainstRealSeries(t *testing.T) {
	needCluster(t)
	createApp(t, "monitored")
	in := start(t, instanceOptions{})
	waitFor(t, 20*time.Second, "a cycle written", func() bool {
		return counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "written"}) > 0
	})

	// artt-scaler, served its real answers through its gRPC interceptor.
	sreg := prometheus.NewRegistry()
	tel := scaler.NewTelemetry(sreg)
	srv := scaler.NewServer(scaler.Options{Source: staticSource{}, DefaultPrometheus: "http://prometheus.monitoring:9090", Telemetry: tel})
	info := &grpc.UnaryServerInfo{FullMethod: "/externalscaler.ExternalScaler/GetMetrics"}
	for i := range 3 {
		req := &pb.GetMetricsRequest{MetricName: "artt-load", ScaledObjectRef: &pb.ScaledObjectRef{
			Name: fmt.Sprintf("web-%d", i), Namespace: "shop", ScalerMetadata: map[string]string{"workload": fmt.Sprintf("web-%d", i)},
		}}
		if _, err := tel.UnaryInterceptor(testScope, req, info, func(ctx context.Context, r any) (any, error) {
			return srv.GetMetrics(ctx, r.(*pb.GetMetricsRequest))
		}); err != nil {
			t.Fatal(err)
		}
		tel.QueryObserver()(scaler.Spec{Namespace: "shop", Name: fmt.Sprintf("web-%d", i)}, scaler.QueryCPUUsage, 20*time.Millisecond, nil)
	}
	// One query failed, as they do in an outage: the failure series exist.
	tel.QueryObserver()(scaler.Spec{Namespace: "shop", Name: "web-0"}, scaler.QueryRequestRate, time.Second, context.DeadlineExceeded)

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(prometheus.Gatherers{in.reg, sreg}, promhttp.HandlerOpts{}))
	mon, stop, err := promtest.StartWithExporter(t.TempDir(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = "/metrics"
		mux.ServeHTTP(w, r)
	}), time.Second, `artt_traffic_group_share`, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	query := func(q string) (result []map[string]any, err error) {
		resp, err := http.Get(mon.URL + "/api/v1/query?" + url.Values{"query": {strings.ReplaceAll(q, "$__rate_interval", "1m")}}.Encode())
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var out struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Data   struct {
				Result []map[string]any `json:"result"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &out); err != nil || out.Status != "success" {
			return nil, fmt.Errorf("%s: %s", out.Error, body)
		}
		return out.Data.Result, nil
	}
	metricName := regexp.MustCompile(`\bartt_[a-z_]+`)
	selector := regexp.MustCompile(`\b(artt_[a-z_]+)\{([^}]*)\}`)
	matcher := regexp.MustCompile(`([a-z_]+)\s*(?:=~|!=|=)`)
	grouping := regexp.MustCompile(`by \(([^)]*)\)`)
	labelsOf := map[string]map[string]bool{}
	seriesLabels := func(name string) map[string]bool {
		if l, ok := labelsOf[name]; ok {
			return l
		}
		series, err := query(name)
		if err != nil || len(series) == 0 {
			labelsOf[name] = nil
			return nil
		}
		l := map[string]bool{}
		for _, s := range series {
			for k := range s["metric"].(map[string]any) {
				l[k] = true
			}
		}
		labelsOf[name] = l
		return l
	}
	exprs, err := monitoring.Expressions()
	if err != nil {
		t.Fatal(err)
	}
	if len(exprs) < 25 {
		t.Fatalf("only %d expressions read", len(exprs))
	}
	for where, expr := range exprs {
		if _, err := query(expr); err != nil {
			t.Errorf("%s: Prometheus refuses it: %v", where, err)
			continue
		}
		names := metricName.FindAllString(expr, -1)
		for _, name := range names {
			if seriesLabels(name) == nil {
				t.Errorf("%s: %s has no series in the components' /metrics", where, name)
			}
		}
		// A label matched inside a selector must be on that metric.
		for _, sel := range selector.FindAllStringSubmatch(expr, -1) {
			for _, m := range matcher.FindAllStringSubmatch(sel[2], -1) {
				if l := seriesLabels(sel[1]); l != nil && !l[m[1]] {
					t.Errorf("%s: %s has no label %q", where, sel[1], m[1])
				}
			}
		}
		// A label grouped by must be on one of the metrics named.
		for _, g := range grouping.FindAllStringSubmatch(expr, -1) {
			for _, l := range strings.Split(g[1], ",") {
				l = strings.TrimSpace(l)
				found := l == "le"
				for _, name := range names {
					found = found || seriesLabels(name)[l]
				}
				if !found {
					t.Errorf("%s: no metric in it has the label %q it groups by", where, l)
				}
			}
		}
	}
}

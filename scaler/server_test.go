package scaler

import (
	"context"
	"maps"
	"math"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/artt-dev/artt/proto/externalscaler"
	"github.com/artt-dev/artt/scaler/metric"
)

// countingSource counts rounds of queries against the real source.
type countingSource struct {
	Fetcher
	rounds atomic.Int64
}

func (c *countingSource) Fetch(ctx context.Context, spec Spec, now time.Time) (metric.Measurements, error) {
	c.rounds.Add(1)
	return c.Fetcher.Fetch(ctx, spec, now)
}

// serve starts srv on a loopback gRPC listener and returns a client.
func serve(t testing.TB, srv *Server) pb.ExternalScalerClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Run(ctx)
	t.Cleanup(cancel)
	return serveServer(t, srv)
}

// serveServer serves any ExternalScaler implementation on loopback.
func serveServer(t testing.TB, srv pb.ExternalScalerServer) pb.ExternalScalerClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pb.RegisterExternalScalerServer(gs, srv)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewExternalScalerClient(conn)
}

// openTenancy lets the tests' triggers name the test Prometheus and run
// their own queries (the production default allows neither).
// http://127.0.0.1:9 is the closed port the tests use where no query runs.
func openTenancy() Tenancy {
	t := Tenancy{AllowQueryOverrides: true, AllowedPrometheus: []string{"http://127.0.0.1:9"}}
	if prom != nil {
		t.AllowedPrometheus = append(t.AllowedPrometheus, prom.URL)
	}
	return t
}

// webMetadata reads the "web" workload on a 1 s grid.
func webMetadata(extra map[string]string) map[string]string {
	md := map[string]string{
		"prometheusAddress": prom.URL,
		"workload":          "web",
		"step":              "1s",
		"window":            "10",
		"history":           "5",
		"rateWindow":        "5s",
		"scalerAddress":     "artt-scaler.keda:6000",
	}
	maps.Copy(md, extra)
	return md
}

func ref(name string, md map[string]string) *pb.ScaledObjectRef {
	return &pb.ScaledObjectRef{Name: name, Namespace: "shop", ScalerMetadata: md}
}

// settled is a clock two scrapes behind, where every scrape has landed: a
// scrape a loaded machine still has in flight leaves a gap at the end of a
// rate window that rate() does not extrapolate over, and the values below
// are the series' exact rates.
func settled() time.Time { return time.Now().Add(-2 * time.Second) }

func TestGetMetricsReturnsValueFromPrometheusSeries(t *testing.T) {
	needProm(t)
	reg := prometheus.NewRegistry()
	tel := NewTelemetry(reg)
	src := &countingSource{Fetcher: NewPrometheusSource(tel.QueryObserver())}
	client := serve(t, NewServer(Options{Source: src, Telemetry: tel, Tenancy: openTenancy(), Now: settled}))
	ctx := context.Background()

	cases := []struct {
		name       string
		md         map[string]string
		metric     string
		wantValue  float64
		wantTarget float64
		why        string
	}{
		{"normalized", webMetadata(nil), "artt-load", 75, 100,
			"utilisation 0.6/1.0 = 60%; constant demand gives θ = maxThreshold 80; 100·60/80 = 75"},
		{"utilization", webMetadata(map[string]string{"metricForm": "utilization"}), "artt-cpu-utilization", 60, 80,
			"raw utilisation 60% against the threshold 80"},
		{"static mode", webMetadata(map[string]string{"mode": "static", "staticThreshold": "40"}), "artt-load", 150, 100,
			"100·60/40 = 150"},
		{"pods", webMetadata(map[string]string{"metricForm": "pods"}), "artt-pods", 1.5, 1,
			"0.6 cores at θ = 80% of one pod's 0.5-core request: 0.6 ÷ 0.4 = 1.5 pods' worth, against one pod"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := client.GetMetricSpec(ctx, ref("web-"+strings.ReplaceAll(tc.name, " ", "-"), tc.md))
			if err != nil {
				t.Fatal(err)
			}
			if len(spec.MetricSpecs) != 1 || spec.MetricSpecs[0].MetricName != tc.metric {
				t.Fatalf("metric specs = %v, want one named %q", spec.MetricSpecs, tc.metric)
			}
			if got := spec.MetricSpecs[0].TargetSizeFloat; !approx(got, tc.wantTarget, 0.01) {
				t.Errorf("target = %v, want %v", got, tc.wantTarget)
			}
			before := src.rounds.Load()
			resp, err := client.GetMetrics(ctx, &pb.GetMetricsRequest{ScaledObjectRef: ref("web-"+strings.ReplaceAll(tc.name, " ", "-"), tc.md), MetricName: tc.metric})
			if err != nil {
				t.Fatal(err)
			}
			got := resp.MetricValues[0]
			if !approx(got.MetricValueFloat, tc.wantValue, 0.01) {
				t.Errorf("value = %v, want %v (%s)", got.MetricValueFloat, tc.wantValue, tc.why)
			}
			// The integer form is the float rounded (the float is checked
			// above, within the measurement's noise).
			if got.MetricValue != int64(math.Round(got.MetricValueFloat)) {
				t.Errorf("integer value = %d, want %v rounded", got.MetricValue, got.MetricValueFloat)
			}
			active, err := client.IsActive(ctx, ref("web-"+strings.ReplaceAll(tc.name, " ", "-"), tc.md))
			if err != nil {
				t.Fatal(err)
			}
			if !active.Result {
				t.Error("IsActive = false with 20 requests per second")
			}
			if n := src.rounds.Load() - before; tc.name != "utilization" && n != 1 {
				t.Errorf("GetMetrics then IsActive ran %d rounds of queries, want 1", n)
			}
		})
	}
	if n := testutil.CollectAndCount(reg, "artt_scaler_threshold_percent"); n != len(cases) {
		t.Errorf("threshold gauge has %d series, want one per ScaledObject (%d)", n, len(cases))
	}
	if got := testutil.ToFloat64(tel.parts["threshold_percent"].WithLabelValues("shop", "web-normalized")); got != 80 {
		t.Errorf("exported threshold = %v, want 80", got)
	}
}

func TestActivation(t *testing.T) {
	needProm(t)
	client := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), Tenancy: openTenancy()}))
	cases := []struct {
		name, workload, activation string
		want                       bool
	}{
		{"traffic above the default 0", "web", "", true},
		{"traffic below the activation rate", "web", "25", false},
		{"no traffic", "idle", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			md := webMetadata(map[string]string{"workload": tc.workload})
			if tc.activation != "" {
				md["activationRequestRate"] = tc.activation
			}
			got, err := client.IsActive(context.Background(), ref(tc.workload, md))
			if err != nil {
				t.Fatal(err)
			}
			if got.Result != tc.want {
				t.Errorf("IsActive = %v, want %v", got.Result, tc.want)
			}
		})
	}
}

func TestBadMetadataIsInvalidArgumentNamingKeyAndValue(t *testing.T) {
	client := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), Tenancy: openTenancy()}))
	base := map[string]string{"prometheusAddress": "http://127.0.0.1:9", "workload": "web"}
	cases := []struct {
		key, value string
	}{
		{"minThreshold", "abc"},
		{"minThreshold", "95"},
		{"maxThreshold", "-3"},
		{"quantile", "1.5"},
		{"window", "1"},
		{"window", "4"}, // a fit needs five samples: the threshold would never move
		{"history", "999999"},
		{"step", "fortnight"},
		{"mode", "magic"},
		{"metricForm", "bytes"},
		{"workload", "Bad_Name"},
		{"prometheusAddress", "ftp://x"},
		{"rateWindow", "5 minutes"},
		{"cpuUsageQuery", "sum({{.Nope}})"},
		{"requestRateQuery", "sum({{"},
		{"maxThreshhold", "90"},
		{"activationRequestRate", "-1"},
		{"deadband", "2"},
	}
	for _, tc := range cases {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			md := maps.Clone(base)
			md[tc.key] = tc.value
			for name, call := range map[string]func() error{
				"GetMetricSpec": func() error { _, err := client.GetMetricSpec(context.Background(), ref("x", md)); return err },
				"IsActive":      func() error { _, err := client.IsActive(context.Background(), ref("x", md)); return err },
				"GetMetrics": func() error {
					_, err := client.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref("x", md), MetricName: "artt-load"})
					return err
				},
			} {
				err := call()
				if status.Code(err) != codes.InvalidArgument {
					t.Fatalf("%s: code = %v (%v), want InvalidArgument", name, status.Code(err), err)
				}
				msg := status.Convert(err).Message()
				if !strings.Contains(msg, `"`+tc.key+`"`) || !strings.Contains(msg, tc.value) {
					t.Errorf("%s: message %q does not name key %q and value %q", name, msg, tc.key, tc.value)
				}
			}
		})
	}
}

func TestQueryProblemsAreReported(t *testing.T) {
	needProm(t)
	client := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), Tenancy: openTenancy()}))
	cases := []struct {
		name string
		md   map[string]string
		code codes.Code
		says string
	}{
		{"query returning several series names its key",
			webMetadata(map[string]string{"cpuUsageQuery": `rate(container_cpu_usage_seconds_total{namespace="shop"}[5s])`}),
			codes.InvalidArgument, "cpuUsageQuery"},
		{"PromQL syntax error names its key",
			webMetadata(map[string]string{"requestRateQuery": `sum(rate(`}),
			codes.InvalidArgument, "requestRateQuery"},
		{"traffic without a CPU request",
			webMetadata(map[string]string{"workload": "nocpu"}),
			codes.Unavailable, "CPU request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := client.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref("q", tc.md), MetricName: "artt-load"})
			if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error = %v, want %v mentioning %q", err, tc.code, tc.says)
			}
		})
	}
}

func TestSameDataSameAnswerAcrossReplicasAndRestarts(t *testing.T) {
	needProm(t)
	at := time.Now().Add(-time.Second)
	clock := func() time.Time { return at }
	md := webMetadata(map[string]string{"window": "6", "history": "6"})
	req := &pb.GetMetricsRequest{ScaledObjectRef: ref("web", md), MetricName: "artt-load"}

	// The first replica has served many polls already; the second is new.
	old := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), Now: clock, CacheTTL: time.Nanosecond, Tenancy: openTenancy()}))
	for range 5 {
		if _, err := old.GetMetrics(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	a, err := old.GetMetrics(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	fresh := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), Now: clock, Tenancy: openTenancy()}))
	b, err := fresh.GetMetrics(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if a.MetricValues[0].MetricValueFloat != b.MetricValues[0].MetricValueFloat {
		t.Errorf("long-running replica says %v, fresh replica %v", a.MetricValues[0].MetricValueFloat, b.MetricValues[0].MetricValueFloat)
	}
}

func TestMetricNameMismatchIsRefused(t *testing.T) {
	client := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), Tenancy: openTenancy()}))
	md := map[string]string{"prometheusAddress": "http://127.0.0.1:9"}
	_, err := client.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref("web", md), MetricName: "cpu"})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "artt-load") {
		t.Errorf("error = %v, want InvalidArgument naming the served metric", err)
	}
}

func TestIdleStateIsDropped(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Unix(1000, 0).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	reg := prometheus.NewRegistry()
	tel := NewTelemetry(reg)
	srv := NewServer(Options{Source: NewPrometheusSource(nil), Now: clock, IdleTTL: time.Minute, Telemetry: tel, Tenancy: openTenancy()})
	md := map[string]string{"prometheusAddress": "http://127.0.0.1:9"}
	for _, name := range []string{"a", "b"} {
		if _, err := srv.GetMetricSpec(context.Background(), ref(name, md)); err != nil {
			t.Fatal(err)
		}
		tel.recordEvaluation(Spec{Namespace: "shop", Name: name}, metric.Evaluation{})
	}
	now.Add(int64(50 * time.Second))
	if _, err := srv.GetMetricSpec(context.Background(), ref("b", md)); err != nil {
		t.Fatal(err)
	}
	now.Add(int64(20 * time.Second))
	srv.dropIdle()
	if got := srv.cache.size(); got != 1 {
		t.Errorf("%d entries after a's idle period, want 1 (b's)", got)
	}
	if n := testutil.CollectAndCount(reg, "artt_scaler_threshold_percent"); n != 1 {
		t.Errorf("%d threshold series after dropping a, want 1", n)
	}
}

// The protocol's integer fields hold a metric to int64's range instead of
// an undefined conversion.
func TestWholeMetricHoldsToInt64(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want int64
	}{
		{74.5, 75},
		{0.4, 0},
		{1e302, math.MaxInt64},
		{math.Inf(1), math.MaxInt64},
		{-1e302, math.MinInt64},
		{math.NaN(), 0},
	} {
		if got := wholeMetric(tc.v); got != tc.want {
			t.Errorf("wholeMetric(%v) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

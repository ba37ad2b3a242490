package scaler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/artt-dev/artt/proto/externalscaler"
)

func TestWithinAllowedPrometheus(t *testing.T) {
	allowed := "http://prometheus.monitoring:9090"
	cases := []struct {
		address string
		ok      bool
	}{
		{"http://prometheus.monitoring:9090", true},
		{"http://prometheus.monitoring:9090/", true},
		{"http://PROMETHEUS.monitoring:9090", true},
		{"http://prometheus.monitoring:9090/tenant-a", true},
		{"https://prometheus.monitoring:9090", false},                              // another scheme
		{"http://prometheus.monitoring:9091", false},                               // another port
		{"http://prometheus.monitoring", false},                                    // no port is port 80
		{"http://prometheus.monitoring:9090.attacker.example", false},              // a text prefix, another host
		{"http://prometheus.monitoring:9090@attacker.example", false},              // a user part, another host
		{"http://attacker.example/http://prometheus.monitoring:9090", false},       // the allowed URL as a path
		{"http://prometheus.monitoring:9090/a/../../admin", false},                 // a path cleaning would change
		{"http://prometheus.monitoring:9090/%2e%2e/admin", false},                  // the same, percent-encoded
		{"http://prometheus.monitoring:9090?target=http://169.254.169.254", false}, // a query
	}
	for _, tc := range cases {
		if got := within(tc.address, allowed); got != tc.ok {
			t.Errorf("within(%q, %q) = %v, want %v", tc.address, allowed, got, tc.ok)
		}
	}
	if !within("http://thanos.monitoring:9090/tenant-a/sub", "http://thanos.monitoring:9090/tenant-a") {
		t.Error("a path below an allowed path is refused")
	}
	if within("http://thanos.monitoring:9090/tenant-ab", "http://thanos.monitoring:9090/tenant-a") {
		t.Error("a sibling path sharing the allowed path's text is accepted")
	}
}

func TestCheckAllowedPrometheusFlag(t *testing.T) {
	for _, bad := range []string{"", "prometheus:9090", "ftp://x", "http://", "http://u:p@prom:9090", "http://prom:9090?x=1"} {
		if err := CheckAllowedPrometheus(bad); err == nil {
			t.Errorf("CheckAllowedPrometheus(%q) accepted it", bad)
		}
	}
	if err := CheckAllowedPrometheus("https://thanos.monitoring:10902/tenant-a"); err != nil {
		t.Errorf("a valid prefix refused: %v", err)
	}
}

// One allowed Prometheus (the real one) and one refused, on two loopback
// ports: a trigger naming the refused one gets InvalidArgument naming the
// key, the value and the flag, and the refused server receives nothing. A
// query override is refused the same way unless overrides are on.
func TestTenancyThroughTheServer(t *testing.T) {
	needProm(t)
	var contacted atomic.Int64
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		contacted.Add(1)
		http.Error(w, "not for artt-scaler", http.StatusTeapot)
	}))
	defer refused.Close()

	client := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), DefaultPrometheus: prom.URL}))
	get := func(md map[string]string) error {
		_, err := client.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref("tenant", md), MetricName: "artt-load"})
		return err
	}
	expectRefused := func(t *testing.T, err error, key, value, flag string) {
		t.Helper()
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("code = %v (%v), want InvalidArgument", status.Code(err), err)
		}
		msg := status.Convert(err).Message()
		for _, want := range []string{`"` + key + `"`, value, flag} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q does not mention %q", msg, want)
			}
		}
	}

	t.Run("the default Prometheus answers", func(t *testing.T) {
		md := webMetadata(nil)
		delete(md, "prometheusAddress")
		if err := get(md); err != nil {
			t.Fatal(err)
		}
		if err := get(webMetadata(nil)); err != nil { // named explicitly
			t.Fatal(err)
		}
	})
	t.Run("another Prometheus is refused without contacting it", func(t *testing.T) {
		err := get(webMetadata(map[string]string{"prometheusAddress": refused.URL}))
		expectRefused(t, err, "prometheusAddress", refused.URL, "--allowed-prometheus")
		if n := contacted.Load(); n != 0 {
			t.Errorf("the refused Prometheus received %d requests", n)
		}
	})
	t.Run("query overrides are refused by default", func(t *testing.T) {
		// Every query a trigger can name, each able to read another
		// namespace's series.
		for _, key := range []string{"cpuUsageQuery", "cpuRequestQuery", "requestRateQuery", "arrivalRateQuery", "podCPURequestQuery"} {
			q := `sum(rate(container_cpu_usage_seconds_total{namespace="other-team"}[1m]))`
			err := get(webMetadata(map[string]string{key: q}))
			expectRefused(t, err, key, "other-team", "--allow-query-overrides")
		}
	})
	t.Run("an operator can allow both", func(t *testing.T) {
		open := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), DefaultPrometheus: prom.URL,
			Tenancy: Tenancy{AllowedPrometheus: []string{prom.URL}, AllowQueryOverrides: true}}))
		md := webMetadata(map[string]string{"cpuUsageQuery": `sum(rate(container_cpu_usage_seconds_total{namespace="shop",pod=~"web-.*"}[5s]))`})
		if _, err := open.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref("tenant", md), MetricName: "artt-load"}); err != nil {
			t.Fatal(err)
		}
	})
}

// Values interpolated into the default queries cannot change the query:
// each injection attempt is refused, naming its key.
func TestInjectionThroughInterpolatedValuesIsRefused(t *testing.T) {
	base := map[string]string{"prometheusAddress": "http://prometheus.monitoring:9090", "workload": "web"}
	cases := []struct {
		name, namespace, key, value, wantKey string
	}{
		{"workload closes the label", "shop", "workload", `web"} or vector(1) #`, "workload"},
		{"workload widens the regex", "shop", "workload", `web|.*`, "workload"},
		{"rateWindow closes the range", "shop", "rateWindow", `1m])) or vector(1000) #`, "rateWindow"},
		{"rateWindow with a subquery", "shop", "rateWindow", `1m:1s`, "rateWindow"},
		{"namespace matches every namespace", `shop",namespace=~".*`, "", "", "namespace"},
		{"namespace with a newline", "shop\n", "", "", "namespace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			md := map[string]string{}
			for k, v := range base {
				md[k] = v
			}
			if tc.key != "" {
				md[tc.key] = tc.value
			}
			_, err := ParseMetadata(tc.namespace, "so", md, "")
			if err == nil || !strings.Contains(err.Error(), `"`+tc.wantKey+`"`) {
				t.Errorf("error %v, want one naming %q", err, tc.wantKey)
			}
		})
	}
	// The name of the ScaledObject becomes the workload when none is given.
	md := map[string]string{"prometheusAddress": "http://prometheus.monitoring:9090"}
	if _, err := ParseMetadata("shop", `web"}`, md, ""); err == nil || !strings.Contains(err.Error(), `"workload"`) {
		t.Errorf("a hostile ScaledObject name used as the workload: error %v", err)
	}
}

// Every problem of a trigger's metadata is reported at once, each naming
// its key and value, through gRPC as one InvalidArgument.
func TestEveryMetadataProblemAtOnce(t *testing.T) {
	md := map[string]string{
		"prometheusAddress": "http://prometheus.monitoring:9090", "workload": "web",
		"maxThreshhold": "90", "window": "3", "rateWindow": "5 minutes", "metricForm": "bytes",
	}
	_, err := ParseMetadata("shop", "so", md, "")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`"maxThreshhold" = "90"`, `"window" = "3"`, `"rateWindow" = "5 minutes"`, `"metricForm" = "bytes"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not report %s", err, want)
		}
	}
	client := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), DefaultPrometheus: "http://prometheus.monitoring:9090"}))
	_, err = client.GetMetricSpec(context.Background(), ref("so", md))
	if status.Code(err) != codes.InvalidArgument || strings.Count(status.Convert(err).Message(), "metadata ") != 4 {
		t.Errorf("through gRPC: %v, want one InvalidArgument with the four problems", err)
	}
}

package scaler

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/artt-dev/artt/proto/externalscaler"
)

// TestPrometheusOutageIsUnavailableAndRecovers stops the shared Prometheus:
// every call must fail with Unavailable (never false or 0), and once
// Prometheus is back the same scaler answers again without a restart.
func TestPrometheusOutageIsUnavailableAndRecovers(t *testing.T) {
	needProm(t)
	client := serve(t, NewServer(Options{Source: NewPrometheusSource(nil), CacheTTL: 100 * time.Millisecond, Tenancy: openTenancy()}))
	md := webMetadata(nil)
	req := &pb.GetMetricsRequest{ScaledObjectRef: ref("outage", md), MetricName: "artt-load"}
	ctx := context.Background()
	if _, err := client.GetMetrics(ctx, req); err != nil {
		t.Fatalf("before the outage: %v", err)
	}

	if err := prom.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // past the cache TTL
	if resp, err := client.GetMetrics(ctx, req); status.Code(err) != codes.Unavailable {
		t.Errorf("GetMetrics during the outage = %v, %v; want Unavailable", resp, err)
	}
	if resp, err := client.IsActive(ctx, ref("outage", md)); status.Code(err) != codes.Unavailable {
		t.Errorf("IsActive during the outage = %v, %v; want Unavailable, never false", resp, err)
	}

	if err := prom.Restart(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.GetMetrics(ctx, req)
		if err == nil {
			if v := resp.MetricValues[0].MetricValueFloat; !approx(v, 75, 0.02) {
				t.Errorf("after recovery value = %v, want 75", v)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery within 30s of the restart: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

package scaler

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
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
	source := NewPrometheusSource(nil)
	client := serve(t, NewServer(Options{Source: source, CacheTTL: 100 * time.Millisecond, Tenancy: openTenancy()}))
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
	// The first answers after the restart may come from a window with the
	// outage's gap in it; once the window has refilled the answer is the
	// workload's again, from the same scaler.
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for {
		resp, err := client.GetMetrics(ctx, req)
		if err == nil {
			v := resp.MetricValues[0].MetricValueFloat
			if approx(v, 75, 0.02) {
				return
			}
			last = fmt.Sprintf("value %v, want 75", v)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery within 30s of the restart: %s", last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestOutageUnderLoad kills and restarts Prometheus while 200 ScaledObjects
// poll from eight callers: no panic and no code but OK or Unavailable; every
// ScaledObject Unavailable during the outage and right again once the
// query window has refilled after Prometheus is back; and no goroutines or
// memory left behind.
func TestOutageUnderLoad(t *testing.T) {
	needProm(t)
	const scaledObjects = 200
	source := NewPrometheusSource(nil)
	client := serve(t, NewServer(Options{Source: source, CacheTTL: 100 * time.Millisecond, Tenancy: openTenancy()}))
	reqs := make([]*pb.GetMetricsRequest, scaledObjects)
	for i := range reqs {
		reqs[i] = &pb.GetMetricsRequest{ScaledObjectRef: ref(fmt.Sprintf("load-%d", i), webMetadata(nil)), MetricName: "artt-load"}
	}
	ctx := context.Background()
	// right counts the answers equal to the series' true value (75); the
	// value is right only once the query window holds no gap, so after a
	// restart it takes the window's length (14 s here) to come back.
	pollAll := func() (right, unavailable int, other error) {
		for _, r := range reqs {
			resp, err := client.GetMetrics(ctx, r)
			switch {
			case err == nil && approx(resp.MetricValues[0].MetricValueFloat, 75, 0.02):
				right++
			case err == nil:
			case status.Code(err) == codes.Unavailable:
				unavailable++
			default:
				other = err
			}
		}
		return right, unavailable, other
	}
	waitRight := func(when string) {
		t.Helper()
		start := time.Now()
		deadline := start.Add(45 * time.Second)
		answered := time.Duration(0)
		for {
			time.Sleep(200 * time.Millisecond) // past the cache TTL: each next call is a new poll
			right, unavailable, err := pollAll()
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if unavailable == 0 && answered == 0 {
				answered = time.Since(start)
			}
			if right == scaledObjects {
				t.Logf("%s: every ScaledObject answered after %s, and answered 75 after %s", when, answered.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: only %d of %d answer 75", when, right, scaledObjects)
			}
		}
	}
	waitRight("before the outage")
	// The connections kept for the next queries (two goroutines each) are
	// closed before each count, so the counts compare what else runs.
	source.CloseIdleConnections()
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	goroutines := runtime.NumGoroutine()
	var heap runtime.MemStats
	runtime.ReadMemStats(&heap)

	// Eight callers poll all the time, as KEDA's operator and adapter do.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var unexpected atomic.Value
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; ; i = (i + 8) % scaledObjects {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := client.GetMetrics(ctx, reqs[i]); err != nil && status.Code(err) != codes.Unavailable {
					unexpected.Store(err)
				}
			}
		}()
	}

	if err := prom.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if _, unavailable, err := pollAll(); unavailable != scaledObjects || err != nil {
		t.Errorf("during the outage %d of %d were Unavailable (%v); want all", unavailable, scaledObjects, err)
	}
	if err := prom.Restart(); err != nil {
		t.Fatal(err)
	}
	waitRight("after the restart")
	close(stop)
	wg.Wait()
	if err, _ := unexpected.Load().(error); err != nil {
		t.Errorf("a caller got neither an answer nor Unavailable: %v", err)
	}

	source.CloseIdleConnections()
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Logf("goroutines %d before, %d after; heap in use %.1f MiB before, %.1f MiB after",
		goroutines, runtime.NumGoroutine(), float64(heap.HeapInuse)/(1<<20), float64(after.HeapInuse)/(1<<20))
	// A few may belong to connections still closing; a leak per failed
	// poll would be thousands.
	if n := runtime.NumGoroutine(); n > goroutines+10 {
		t.Errorf("%d goroutines after the outage, %d before: a leak", n, goroutines)
	}
	if growth := float64(after.HeapInuse) - float64(heap.HeapInuse); growth > 16<<20 {
		t.Errorf("heap grew by %.1f MiB over the outage", growth/(1<<20))
	}
}

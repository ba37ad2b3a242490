package scaler

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/artt-dev/artt/internal/promtest"
	pb "github.com/artt-dev/artt/proto/externalscaler"
)

// TestScalerFleet measures artt-scaler at 1,000 ScaledObjects against a
// real Prometheus (ARTT_SCALER_FLEET=1; make bench-scaler). Prometheus
// holds 90 minutes of history for 1,000 workloads, written by promtool:
// each workload's request counter, its pod's CPU counter and CPU request,
// every 30 s. The scaler polls every ScaledObject once per round, from
// eight callers as KEDA's workers do, at the default knobs (window 40,
// history 240: 279 points per range query); its clock advances 30 s per
// round, KEDA's default polling interval, so a round's points are the
// previous round's plus two. The rounds run twice: asking for whole ranges,
// then reusing settled points (--reuse-ranges). It reports, per round,
// the queries, GetMetrics' P50 and P99, the CPU seconds Prometheus and this
// process (the scaler and its callers) spent, and the heap in use after
// the rounds; it asserts only that every call succeeded.
func TestScalerFleet(t *testing.T) {
	if os.Getenv("ARTT_SCALER_FLEET") == "" {
		t.Skip("set ARTT_SCALER_FLEET=1 (make bench-scaler)")
	}
	if _, err := promtest.Binary(); err != nil {
		t.Fatal(err)
	}
	const (
		scaledObjects = 1000
		rounds        = 6
		sampleEvery   = 30 * time.Second
	)
	end := time.Now().Truncate(time.Minute)
	begin := end.Add(-90 * time.Minute)
	built := time.Now()
	var h promtest.History
	for i := range scaledObjects {
		rps := 20 + float64(i%50)
		cost := 0.002 + 0.00001*float64(i%100)
		pod := fmt.Sprintf("web-%d-5d8f9c7b6-x%04d", i, i)
		requests, cpu := 0.0, 0.0
		for at := begin; !at.After(end); at = at.Add(sampleEvery) {
			x := float64(at.Sub(begin)) / float64(time.Minute)
			rate := rps * (1 + 0.3*math.Sin(x/9+float64(i)) + 0.05*math.Sin(x*1.7))
			requests += rate * sampleEvery.Seconds()
			cpu += rate * cost * sampleEvery.Seconds()
			h.Counter("istio_requests_total", fmt.Sprintf(`reporter="destination",destination_workload="web-%d",destination_workload_namespace="shop"`, i), at, requests)
			h.Counter("container_cpu_usage_seconds_total", fmt.Sprintf(`namespace="shop",pod=%q,container="app"`, pod), at, cpu)
			h.Gauge("kube_pod_container_resource_requests", fmt.Sprintf(`namespace="shop",pod=%q,resource="cpu"`, pod), at, 0.5)
			h.Gauge("kube_pod_status_ready", fmt.Sprintf(`namespace="shop",pod=%q,condition="true"`, pod), at, 1)
		}
	}
	prom, err := promtest.StartWithHistory(t.TempDir(), &h, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer prom.Stop()
	t.Logf("history of %d workloads written and loaded in %.1f s", scaledObjects, time.Since(built).Seconds())

	reqs := make([]*pb.GetMetricsRequest, scaledObjects)
	for i := range reqs {
		reqs[i] = &pb.GetMetricsRequest{MetricName: "artt-load", ScaledObjectRef: &pb.ScaledObjectRef{
			Name: fmt.Sprintf("so-%d", i), Namespace: "shop", ScalerMetadata: map[string]string{"workload": fmt.Sprintf("web-%d", i)},
		}}
	}
	for _, mode := range []struct {
		name   string
		source func(QueryObserver) *PrometheusSource
	}{
		{"whole ranges", func(o QueryObserver) *PrometheusSource { return NewPrometheusSource(o) }},
		{"reused ranges", func(o QueryObserver) *PrometheusSource {
			return NewPrometheusSource(o).ReuseRanges(time.Minute, 10*time.Minute, 10*time.Minute)
		}},
	} {
		var queries atomic.Int64
		var clock atomic.Int64
		clock.Store(end.Add(-rounds * 30 * time.Second).UnixNano())
		srv := NewServer(Options{
			Source:            mode.source(func(Spec, QueryName, time.Duration, error) { queries.Add(1) }),
			DefaultPrometheus: prom.URL, CacheTTL: time.Nanosecond,
			Now: func() time.Time { return time.Unix(0, clock.Load()) },
		})
		for round := 1; round <= rounds; round++ {
			queries.Store(0)
			promCPU := processCPU(t, prom)
			selfCPU := ownCPU()
			latencies := make([]time.Duration, scaledObjects)
			var failures atomic.Int64
			var next atomic.Int64
			var wg sync.WaitGroup
			began := time.Now()
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1) - 1; i < scaledObjects; i = next.Add(1) - 1 {
						start := time.Now()
						if _, err := srv.GetMetrics(context.Background(), reqs[i]); err != nil {
							if failures.Add(1) == 1 {
								t.Errorf("%s, round %d, %s: %v", mode.name, round, reqs[i].ScaledObjectRef.Name, err)
							}
						}
						latencies[i] = time.Since(start)
					}
				}()
			}
			wg.Wait()
			wall := time.Since(began)
			slices.Sort(latencies)
			t.Logf("%s, round %d: %d queries, wall %.2f s, GetMetrics P50 %.1f ms P99 %.1f ms, CPU Prometheus %.2f s, scaler process %.2f s",
				mode.name, round, queries.Load(), wall.Seconds(),
				ms(latencies[len(latencies)/2]), ms(latencies[len(latencies)*99/100]),
				processCPU(t, prom)-promCPU, ownCPU()-selfCPU)
			clock.Add(int64(30 * time.Second))
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		t.Logf("%s: heap in use after the rounds, the scaler's state held, %.1f MiB", mode.name, float64(m.HeapInuse)/(1<<20))
		runtime.KeepAlive(srv)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// processCPU reads a Prometheus server's own CPU seconds.
func processCPU(t *testing.T, prom *promtest.Server) float64 {
	t.Helper()
	v, err := prom.CPUSeconds()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ownCPU is this process's user and system CPU seconds.
func ownCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

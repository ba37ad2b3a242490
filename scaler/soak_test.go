package scaler

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/artt-dev/artt/internal/stats"
	pb "github.com/artt-dev/artt/proto/externalscaler"
)

// TestSoak polls 1,000 ScaledObjects at the default knobs for ARTT_SOAK (a
// duration such as 30m; make soak) the way KEDA does, every ScaledObject
// about every 30 s from eight callers, and samples the heap after a GC
// every 30 s. It reports the slope of a least-squares line through the
// samples after the first five minutes (warm-up): memory is flat when the
// slope is near zero. It asserts no slope: the figure is for the note.
func TestSoak(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("ARTT_SOAK"))
	if err != nil || d <= 0 {
		t.Skip("set ARTT_SOAK to a duration, such as 30m (make soak)")
	}
	const scaledObjects = 1000
	srv := NewServer(Options{Source: fixedSource{defaultKnobsHistory()},
		DefaultPrometheus: "http://prometheus.monitoring:9090", Telemetry: NewTelemetry(prometheus.NewRegistry())})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := serve(t, srv) // runs srv.Run until the test ends
	reqs := make([]*pb.GetMetricsRequest, scaledObjects)
	for i := range reqs {
		reqs[i] = &pb.GetMetricsRequest{MetricName: "artt-load", ScaledObjectRef: &pb.ScaledObjectRef{
			Name: fmt.Sprintf("so-%d", i), Namespace: "shop", ScalerMetadata: map[string]string{"workload": fmt.Sprintf("web-%d", i)},
		}}
	}
	var wg sync.WaitGroup
	var failures int64
	var mu sync.Mutex
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(30 * time.Second / (scaledObjects / 8))
			defer tick.Stop()
			for i := c; ; i = (i + 8) % scaledObjects {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				if _, err := client.GetMetrics(ctx, reqs[i]); err != nil && ctx.Err() == nil {
					mu.Lock()
					failures++
					mu.Unlock()
				}
			}
		}()
	}
	start := time.Now()
	var xs, ys []float64
	for time.Since(start) < d {
		time.Sleep(30 * time.Second)
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		minutes := time.Since(start).Minutes()
		t.Logf("%5.1f min: heap in use %.2f MiB, goroutines %d", minutes, float64(m.HeapInuse)/(1<<20), runtime.NumGoroutine())
		if minutes >= 5 {
			xs = append(xs, minutes)
			ys = append(ys, float64(m.HeapInuse)/1024)
		}
	}
	cancel()
	wg.Wait()
	if failures > 0 {
		t.Errorf("%d polls failed", failures)
	}
	if len(xs) >= 2 {
		t.Logf("heap slope after warm-up: %.2f KiB per minute (mean %.0f KiB over %d samples)", stats.Slope(xs, ys), stats.Mean(ys), len(xs))
	}
}

package scaler

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/artt-dev/artt/proto/externalscaler"
	"github.com/artt-dev/artt/scaler/metric"
)

// gatedSource answers after release is closed (or at once when it is nil),
// recording how many fetches ran at the same time.
type gatedSource struct {
	release       chan struct{}
	running, peak atomic.Int64
	demand, cpu   []float64
}

func (g *gatedSource) Fetch(ctx context.Context, spec Spec, _ time.Time) (metric.Measurements, error) {
	n := g.running.Add(1)
	defer g.running.Add(-1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	if g.release != nil {
		<-g.release
	}
	return metric.Measurements{Demand: g.demand, CPU: g.cpu, CPURequest: 2}, nil
}

func newGatedSource(release chan struct{}) *gatedSource {
	g := &gatedSource{release: release, demand: make([]float64, 9), cpu: make([]float64, 9)}
	for i := range g.demand {
		g.demand[i] = 100 + 10*math.Sin(float64(i))
		g.cpu[i] = g.demand[i] / 100
	}
	return g
}

func pollMetadata(i int) map[string]string {
	return map[string]string{"workload": fmt.Sprintf("web-%d", i), "window": "5", "history": "5", "queryTimeout": "2s"}
}

// A burst of polls from many ScaledObjects runs at most
// --max-concurrent-polls rounds at once; the rest wait their turn.
func TestConcurrentPollsAreBounded(t *testing.T) {
	release := make(chan struct{})
	src := newGatedSource(release)
	client := serve(t, NewServer(Options{Source: src, DefaultPrometheus: "http://prometheus.monitoring:9090", MaxConcurrentPolls: 3}))
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := client.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref(fmt.Sprintf("so-%d", i), pollMetadata(i)), MetricName: "artt-load"})
			errs <- err
		}()
	}
	time.Sleep(300 * time.Millisecond) // every poll has arrived and the slots are full
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a waiting poll failed: %v", err)
		}
	}
	if p := src.peak.Load(); p != 3 {
		t.Errorf("%d rounds ran at once, want the limit of 3", p)
	}
}

// When every slot stays busy for longer than a poll's query timeout, the
// poll is Unavailable, naming the flag, rather than queueing without end.
func TestPollWithoutASlotIsUnavailable(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := NewServer(Options{Source: newGatedSource(hold), DefaultPrometheus: "http://prometheus.monitoring:9090", MaxConcurrentPolls: 1})
	client := serve(t, srv)
	go func() {
		_, _ = client.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref("busy", pollMetadata(0)), MetricName: "artt-load"})
	}()
	time.Sleep(100 * time.Millisecond)
	md := pollMetadata(1)
	md["queryTimeout"] = "200ms"
	_, err := client.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref("waiting", md), MetricName: "artt-load"})
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "--max-concurrent-polls") {
		t.Errorf("error %v, want Unavailable naming --max-concurrent-polls", err)
	}
}

// State is bounded by the live ScaledObjects: 10,000 distinct ones leave
// 10,000 entries and their series, and after the idle period none.
func TestTenThousandScaledObjectsLeaveNoState(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Unix(1000, 0).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	reg := prometheus.NewRegistry()
	tel := NewTelemetry(reg)
	srv := NewServer(Options{Source: newGatedSource(nil), DefaultPrometheus: "http://prometheus.monitoring:9090", Now: clock, IdleTTL: time.Minute, Telemetry: tel, MaxConcurrentPolls: 8})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 10000
	for i := range n {
		if _, err := srv.GetMetrics(context.Background(), &pb.GetMetricsRequest{ScaledObjectRef: ref(fmt.Sprintf("so-%d", i), pollMetadata(i)), MetricName: "artt-load"}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d ScaledObjects: %.1f KiB of heap each (entry, parsed metadata, last evaluation, telemetry series)",
		n, (float64(after.HeapInuse)-float64(before.HeapInuse))/n/1024)
	if got := srv.cache.size(); got != n {
		t.Fatalf("%d entries, want %d", got, n)
	}
	if got := testutil.CollectAndCount(reg, "artt_scaler_threshold_percent"); got != n {
		t.Fatalf("%d threshold series, want %d", got, n)
	}
	now.Add(int64(2 * time.Minute))
	srv.dropIdle()
	if got := srv.cache.size(); got != 0 {
		t.Errorf("%d entries after the idle period, want 0", got)
	}
	if got := testutil.CollectAndCount(reg, "artt_scaler_threshold_percent"); got != 0 {
		t.Errorf("%d threshold series after the idle period, want 0", got)
	}
}

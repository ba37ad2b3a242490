package scaler

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pb "github.com/artt-dev/artt/proto/externalscaler"
	"github.com/artt-dev/artt/scaler/metric"
)

// fixedSource answers every poll with the same measurements. The benchmark
// below warms the cache with it once; after that the source is not called.
type fixedSource struct{ m metric.Measurements }

func (f fixedSource) Fetch(context.Context, Spec, time.Time) (metric.Measurements, error) {
	return f.m, nil
}

// noopScaler is the transport's limit: a GetMetrics that does nothing.
type noopScaler struct {
	pb.UnimplementedExternalScalerServer
}

var noopResponse = &pb.GetMetricsResponse{MetricValues: []*pb.MetricValue{{MetricName: "artt-load", MetricValue: 75, MetricValueFloat: 75}}}

func (noopScaler) GetMetrics(context.Context, *pb.GetMetricsRequest) (*pb.GetMetricsResponse, error) {
	return noopResponse, nil
}

// BenchmarkGetMetrics compares GetMetrics served from the per-poll cache for
// 1,000 ScaledObjects with a do-nothing handler, both over loopback gRPC.
func BenchmarkGetMetrics(b *testing.B) {
	const scaledObjects = 1000
	demand := make([]float64, 100)
	cpu := make([]float64, 100)
	for i := range demand {
		demand[i] = 100 + 10*math.Sin(float64(i)/5)
		cpu[i] = demand[i] * 0.01
	}
	reqs := make([]*pb.GetMetricsRequest, scaledObjects)
	for i := range reqs {
		reqs[i] = &pb.GetMetricsRequest{MetricName: "artt-load", ScaledObjectRef: &pb.ScaledObjectRef{
			Name: fmt.Sprintf("so-%d", i), Namespace: "shop",
			ScalerMetadata: map[string]string{
				"prometheusAddress": "http://prometheus.monitoring:9090", "workload": fmt.Sprintf("web-%d", i),
				"window": "40", "history": "61", "scalerAddress": "artt-scaler.keda:6000",
			},
		}}
	}
	servers := []struct {
		name   string
		server pb.ExternalScalerServer
	}{
		{"server=noop", noopScaler{}},
		{"server=artt-cached", NewServer(Options{Source: fixedSource{metric.Measurements{Demand: demand, CPU: cpu, CPURequest: 2}}, CacheTTL: time.Hour, DefaultPrometheus: "http://prometheus.monitoring:9090"})},
	}
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			client := serveServer(b, s.server)
			for _, r := range reqs { // warm: one round per ScaledObject
				if _, err := client.GetMetrics(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(8) // many KEDA callers at once
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r := reqs[next.Add(1)%scaledObjects]
					if _, err := client.GetMetrics(context.Background(), r); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkPollRound times one poll round of 1,000 ScaledObjects at the
// default knobs (window 40, history 240: 279 samples per query), each
// trigger evaluated afresh (a round per call): the scaler's own CPU per
// round, the threshold replayed over the whole history for each, with the
// measurements served from memory so Prometheus's share is left out. One
// operation is the whole round.
func BenchmarkPollRound(b *testing.B) {
	const scaledObjects = 1000
	srv := NewServer(Options{Source: fixedSource{defaultKnobsHistory()}, CacheTTL: time.Nanosecond,
		DefaultPrometheus: "http://prometheus.monitoring:9090"})
	reqs := make([]*pb.GetMetricsRequest, scaledObjects)
	for i := range reqs {
		reqs[i] = &pb.GetMetricsRequest{MetricName: "artt-load", ScaledObjectRef: &pb.ScaledObjectRef{
			Name: fmt.Sprintf("so-%d", i), Namespace: "shop", ScalerMetadata: map[string]string{"workload": fmt.Sprintf("web-%d", i)},
		}}
	}
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		var next atomic.Int64
		for range 8 { // KEDA's callers
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1) - 1; i < scaledObjects; i = next.Add(1) - 1 {
					if _, err := srv.GetMetrics(context.Background(), reqs[i]); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

// defaultKnobsHistory is a poll's measurements at the default knobs: 279
// samples (window 40 + history 240 − 1) of a demand with two periods, its
// arrivals 5% above what is served.
func defaultKnobsHistory() metric.Measurements {
	m := metric.Measurements{Demand: make([]float64, 279), Arrivals: make([]float64, 279), CPU: make([]float64, 279), CPURequest: 2}
	for i := range m.Demand {
		m.Demand[i] = 100 + 20*math.Sin(float64(i)/7) + 5*math.Sin(float64(i)*1.7)
		m.Arrivals[i] = 1.05 * m.Demand[i]
		m.CPU[i] = m.Demand[i] * 0.01
	}
	return m
}

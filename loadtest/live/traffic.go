package live

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/artt-dev/artt/traffic/allocate"
	"github.com/artt-dev/artt/traffic/controller"
)

// startTraffic runs artt-traffic's controller with policy, as
// cmd/artt-traffic does with its default queries, every trafficCycle and
// its fast path at every scrape (as the lab's), until the returned
// function is called. Its log is dir/artt-traffic-NS.log. The delay query
// reads the harness's probe series, which carry no blackbox job.
func startTraffic(ctx context.Context, c *Cluster, policy, dir, ns string, cycle, scrape time.Duration) (func(), error) {
	s, err := controller.Scheme()
	if err != nil {
		return nil, err
	}
	cacheOpts, err := controller.CacheOptions()
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(c.Config, ctrl.Options{Scheme: s, Cache: cacheOpts, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		return nil, err
	}
	pc, err := api.NewClient(api.Config{Address: c.Prom.URL})
	if err != nil {
		return nil, err
	}
	q := controller.DefaultQueries()
	q.Delay = `avg by (source_node, target_node) (probe_duration_seconds) * 1000 / 2`
	logFile, err := os.OpenFile(filepath.Join(dir, "artt-traffic-"+ns+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	ctl, err := controller.New(mgr.GetClient(), mgr.GetCache(), c.Istio, controller.Options{
		Interval: cycle, ProtectInterval: scrape, Policy: policy, Allocate: allocate.DefaultOptions(),
		Collector: controller.Collector{Client: pc, Queries: q, Timeout: scrape},
	}, prometheus.NewRegistry(), slog.New(slog.NewJSONHandler(io.Writer(logFile), nil)))
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := mgr.Add(ctl); err != nil {
		logFile.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		<-done
		logFile.Close()
	}, nil
}

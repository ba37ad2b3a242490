package mesh_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/artt-dev/artt/traffic/allocate"
	"github.com/artt-dev/artt/traffic/controller"
)

// runTraffic runs artt-traffic in-process, as cmd/artt-traffic does, every
// two seconds, until the test ends.
func runTraffic(t *testing.T) {
	t.Helper()
	s, err := controller.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	cacheOpts, err := controller.CacheOptions()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: s, Cache: cacheOpts, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	q := controller.DefaultQueries()
	q.Delay = `avg by (source_node, target_node) (probe_duration_seconds) * 1000 / 2`
	c, err := controller.New(mgr.GetClient(), mgr.GetCache(), ic, controller.Options{
		Interval: 2 * time.Second, ProtectInterval: -1, Policy: "artt", Allocate: allocate.DefaultOptions(),
		Collector: controller.Collector{Client: pc, Queries: q, Timeout: 2 * time.Second},
	}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(c); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testScope)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

package live

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/live/loadgen"
	"github.com/artt-dev/artt/loadtest/workload"

	"github.com/artt-dev/artt/internal/stats"
)

// idleScenario is one component doing a microsecond of work, on one node
// with no delay: what the generator and gRPC add by themselves.
const idleScenario = `name: idle
duration: 10s
cluster:
  nodes: [{name: n1, cores: 1}]
  ingress: {replicas: 1}
  delays: {localMs: 0}
application:
  components: [{name: echo, cpuPerRequest: 1us, demand: constant, replicas: 1, placement: [n1]}]
workload: {type: constant, rate: 200}
runs: [{routing: round-robin}]
`

// The generator's own precision, reported: how late it sends after each
// scheduled time, and the latency floor of a request to an idle backend
// on loopback (gRPC, HTTP/2 and the generator, nothing else). Every
// request must be sent, answered and recorded in order, at the lab's
// arrival times for the seed.
func TestLoadgenPrecisionOnAnIdleBackend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "idle.yaml")
	if err := os.WriteFile(path, []byte(idleScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := loadtest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ports := testcluster.FreePorts(2)
	grpcPort, metricsPort := ports[0], ports[1]
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(grpcPort))
	s, err := backend.New(backend.Config{Scenario: l.Scenario, Component: "echo", Node: "n1", Namespace: "idle", Pod: "echo-0",
		IP: "127.0.0.1", Port: grpcPort, MetricsPort: metricsPort, Limit: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := make(chan struct{})
	var serveErr error
	go func() {
		serveErr = s.Serve(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
		close(exited)
	}()
	conn, err := backend.Dialer{Static: map[string][]string{"echo": {addr}}}.Dial("echo")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := waitListening(ctx, addr, exited); err != nil {
		select {
		case <-exited:
			t.Fatalf("%v: %v", err, serveErr)
		default:
			t.Fatal(err)
		}
	}
	g := loadgen.New(loadgen.Config{Rate: workload.Constant(200), Duration: 5 * time.Second, Timeout: 5 * time.Second, Seed: 1, Node: "n1", Workload: "test"})
	recs := g.Run(ctx, conn, "echo")
	if len(recs) < 800 || len(recs) > 1200 {
		t.Fatalf("%d requests in 5 s at 200 per second", len(recs))
	}
	// The arrivals are the lab's at the seed: the same times, in order.
	labArrivals := workload.Arrivals(1)
	at := 0.0
	var lat []float64
	for i, r := range recs {
		if at = workload.Constant(200).Next(at, labArrivals); r.At != at {
			t.Fatalf("request %d scheduled at %.9f s; the lab's arrival %d at seed 1 is at %.9f s", i, r.At, i, at)
		}
		if r.Code != codes.OK {
			t.Fatalf("request %d: %v", i, r.Code)
		}
		if i > 0 && r.At < recs[i-1].At {
			t.Fatalf("request %d scheduled at %.6f s, before the one sent before it (%.6f s)", i, r.At, recs[i-1].At)
		}
		lat = append(lat, r.LatencyMs)
	}
	slices.Sort(lat)
	lag := SendLag(&Measured{Records: recs})
	t.Logf("idle backend on loopback, %d requests at 200/s: latency P50 %.3f ms, P99 %.3f ms; sent late by P50 %.0f µs, P99 %.0f µs, max %.0f µs",
		len(recs), stats.Quantile(lat, 0.5), stats.Quantile(lat, 0.99), lag.P50, lag.P99, lag.Max)
}

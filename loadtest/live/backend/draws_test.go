package backend

import (
	"context"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/workload"
)

// A pod spends on each call the work the lab draws for that call at the
// workload's seed, on a node of speed one half, then of a quarter once the
// harness slows the node (SpeedPath); a speed that is no number is
// refused, and so is a call that names no key, naming the metadata it
// lacks.
func TestAPodSpendsItsCallsDraw(t *testing.T) {
	if err := CheckClock(); err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "draws.yaml")
	if err := os.WriteFile(path, []byte(`name: draws
duration: 10s
cluster:
  nodes: [{name: n1, cores: 1, speed: 0.5}]
  ingress: {replicas: 1}
application:
  components: [{name: w, cpuPerRequest: 3ms, demand: lognormal, demandCV: 0.6, replicas: 1, placement: [n1]}]
workload: {type: constant, rate: 10}
runs: [{routing: round-robin}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := loadtest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ports := testcluster.FreePorts(2)
	port, metricsPort := ports[0], ports[1]
	s, err := New(Config{Scenario: l.Scenario, Component: "w", Node: "n1", Namespace: "draws", Pod: "w-0",
		IP: "127.0.0.1", Port: port, MetricsPort: metricsPort, Limit: 1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	awaitListening(t, addr, served)
	awaitListening(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(metricsPort)), served)
	conn, err := Dialer{Static: map[string][]string{"w": {addr}}}.Dial("w")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lab := workload.NewCallDraws(7)
	comp := l.Scenario.Application.Components[0]
	speedURL := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(metricsPort)) + SpeedPath
	for i, key := range []uint64{workload.RootKey(0), workload.RootKey(1), workload.ChildKey(workload.RootKey(0), 0), workload.RootKey(2)} {
		speed := 0.5
		if i == 3 {
			speed = 0.25
			putSpeed(t, speedURL, "0.25", http.StatusNoContent)
		}
		want := time.Duration(comp.DrawCPU(lab.Of(key, workload.DrawWork)) / speed * float64(time.Second))
		before := s.burned.Load()
		rctx, done := context.WithTimeout(metadata.AppendToOutgoingContext(ctx, CallKeyKey, FormatCallKey(key)), 10*time.Second)
		err := Call(rctx, conn)
		done()
		if err != nil {
			t.Fatal(err)
		}
		got := time.Duration(s.burned.Load() - before)
		t.Logf("call %x: spent %s, the lab's draw %s", key, got, want)
		if math.Abs(float64(got-want)) > 0.05*float64(want)+float64(100*time.Microsecond) {
			t.Errorf("call %x spent %s; the lab draws %s for it", key, got, want)
		}
	}
	putSpeed(t, speedURL, "fast", http.StatusBadRequest)
	err = Call(ctx, conn)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), CallKeyKey) {
		t.Errorf("a call without a key: %v; want InvalidArgument naming %s", err, CallKeyKey)
	}
}

// awaitListening returns once addr accepts a connection: Serve binds in its
// own goroutine, and a call before then fails without a retry. Serve's
// return before then (a port taken since testcluster.FreePorts) fails the test with
// its error.
func awaitListening(t *testing.T, addr string, served <-chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-served:
			t.Fatalf("the server stopped before %s listened: %v", addr, err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not listening after 10 s: %v", addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func putSpeed(t *testing.T, url, body string, want int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Errorf("PUT %s %q: %s, want %d", url, body, resp.Status, want)
	}
}

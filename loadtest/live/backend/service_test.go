package backend

import (
	"context"
	"math"
	"net"
	"sync/atomic"
	"testing"
	"time"

	v3orcapb "github.com/cncf/xds/go/xds/data/orca/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/orca"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

// counting answers at once and counts what it answered.
type counting struct{ calls atomic.Int64 }

func (c *counting) serve(context.Context) error { c.calls.Add(1); return nil }

// startReporting serves the package's service with ORCA's per-call reports
// of a fixed utilisation and rate, as a pod's recorder holds them between
// two samples.
func startReporting(t *testing.T, utilization, qps float64) (string, *counting) {
	t.Helper()
	rec := orca.NewServerMetricsRecorder()
	rec.SetCPUUtilization(utilization)
	rec.SetQPS(qps)
	gs := grpc.NewServer(orca.CallMetricsServerOption(rec))
	c := &counting{}
	gs.RegisterService(&serviceDesc, c)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	return lis.Addr().String(), c
}

// Each answer carries the pod's load report in its trailer.
func TestAnswersCarryTheLoadReport(t *testing.T) {
	addr, _ := startReporting(t, 0.6, 40)
	conn, err := Dialer{Static: map[string][]string{"b": {addr}}}.Dial("b")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var trailer metadata.MD
	if err := conn.Invoke(context.Background(), Method, &emptypb.Empty{}, &emptypb.Empty{}, grpc.Trailer(&trailer)); err != nil {
		t.Fatal(err)
	}
	raw := trailer.Get("endpoint-load-metrics-bin")
	if len(raw) != 1 {
		t.Fatalf("trailer %v: no load report", trailer)
	}
	report := &v3orcapb.OrcaLoadReport{}
	if err := proto.Unmarshal([]byte(raw[0]), report); err != nil {
		t.Fatal(err)
	}
	if report.GetCpuUtilization() != 0.6 || report.GetRpsFractional() != 40 {
		t.Errorf("load report %v, want CPU utilisation 0.6 and 40 requests per second", report)
	}
}

// gRPC's weighted round robin splits by the reports (rate ÷ utilisation)
// once its 10 s blackout has passed: a pod whose requests cost half as
// much takes two thirds.
func TestWeightedRoundRobinFollowsTheReports(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out weighted round robin's 10 s blackout")
	}
	cheap, cheapCalls := startReporting(t, 0.3, 30)
	dear, dearCalls := startReporting(t, 0.6, 30)
	conn, err := Dialer{Static: map[string][]string{"b": {cheap, dear}}}.Dial("b")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call := func(n int) {
		for range n {
			if err := Call(context.Background(), conn); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		call(50)
	}
	before := cheapCalls.calls.Load()
	beforeDear := dearCalls.calls.Load()
	call(900)
	share := float64(cheapCalls.calls.Load()-before) / float64(cheapCalls.calls.Load()-before+dearCalls.calls.Load()-beforeDear)
	if math.Abs(share-2.0/3) > 0.03 {
		t.Errorf("the cheaper pod took %.1f%% of 900 calls, want 66.7%% (weights 100 and 50)", 100*share)
	}
}

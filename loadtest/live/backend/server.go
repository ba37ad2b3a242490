package backend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/orca"
	"google.golang.org/grpc/status"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// Config is one pod.
type Config struct {
	Scenario  *scenario.Scenario
	Component string // the scenario's component name
	Node      string // the scenario's node name
	Namespace string
	Pod       string
	IP        string
	// Port and MetricsPort default to the package's Port and MetricsPort.
	Port, MetricsPort int
	// CPUAcct is the pod cgroup's cpuacct.usage file, its CPU workers'.
	// ServerCPUAcct is that of the rest of its server, beside the work.
	CPUAcct, ServerCPUAcct string
	// Cgroups are where its threads go.
	Cgroups Cgroups
	// Limit is the pod's CPU limit in cores, for the utilisation ORCA
	// reports.
	Limit float64
	// Seed is the workload's: each request's work and jitter are its
	// call's draws at that seed (workload.CallDraws), as the lab's run of
	// the scenario at that seed draws them.
	Seed uint64
	// Callees dials a callee component (see Dialer).
	Callees Dialer
	// Speed is the node's speed the pod starts at, when it is not the
	// scenario's (a node slowed before the pod started); 0 for the
	// scenario's.
	Speed float64
}

// Server is a running backend.
type Server struct {
	cfg  Config
	comp scenario.Component
	// speed is the node's speed now (math.Float64bits): a request's work
	// is scaled by its inverse.
	speed atomic.Uint64
	// inMs and outMs are the one-way delays from each node to this one,
	// and back.
	inMs, outMs map[string]float64
	jitter      float64
	conns       []callee
	metrics     *Metrics
	orca        orca.ServerMetricsRecorder
	// burned is the CPU spent on requests' work so far, in nanoseconds,
	// counted as it is spent.
	burned   atomic.Int64
	overhead overhead
	cpu      *processor

	mu    sync.Mutex
	draws *workload.CallDraws
}

type callee struct {
	workload string
	conn     *grpc.ClientConn
}

// New checks cfg against its scenario, moves the process into its
// cgroups, starts the pod's CPU workers and dials the callees.
func New(cfg Config) (*Server, error) {
	if err := CheckClock(); err != nil {
		return nil, err
	}
	sc := cfg.Scenario
	s := &Server{cfg: cfg, draws: workload.NewCallDraws(cfg.Seed), inMs: map[string]float64{}, outMs: map[string]float64{},
		jitter: sc.Cluster.Delays.JitterMs, orca: orca.NewServerMetricsRecorder()}
	found := false
	for _, c := range sc.Application.Components {
		if c.Name == cfg.Component {
			s.comp, found = c, true
		}
	}
	if !found {
		return nil, fmt.Errorf("component %q is not in scenario %s", cfg.Component, sc.Name)
	}
	self := -1
	for i, n := range sc.Cluster.Nodes {
		if n.Name == cfg.Node {
			self = i
			s.speed.Store(math.Float64bits(cmp.Or(cfg.Speed, n.Speed)))
		}
	}
	if self < 0 {
		return nil, fmt.Errorf("node %q is not in scenario %s", cfg.Node, sc.Name)
	}
	m := sc.Cluster.DelayMatrix()
	for i, n := range sc.Cluster.Nodes {
		s.inMs[n.Name], s.outMs[n.Name] = m[i][self], m[self][i]
	}
	s.metrics = NewMetrics(cfg.Namespace, cfg.Pod, ObjectName(cfg.Component), cfg.CPUAcct)
	s.metrics.countWork(&s.burned)
	s.metrics.countServer(cfg.ServerCPUAcct)
	if err := s.metrics.countPressure(cfg.Cgroups.Work); err != nil {
		return nil, err
	}
	if err := cfg.Cgroups.joinProcess(); err != nil {
		return nil, err
	}
	var err error
	if s.cpu, err = newProcessor(cfg.Limit, &s.burned, cfg.Cgroups.joinThread); err != nil {
		return nil, err
	}
	for _, name := range s.comp.Calls {
		conn, err := cfg.Callees.Dial(name)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("dial %s: %w", name, err)
		}
		s.conns = append(s.conns, callee{workload: ObjectName(name), conn: conn})
	}
	return s, nil
}

// Close stops the pod's CPU workers and closes the callees' connections.
func (s *Server) Close() {
	if s.cpu != nil {
		s.cpu.Close()
	}
	for _, c := range s.conns {
		c.conn.Close()
	}
}

// Serve answers on the pod's address until ctx ends: gRPC on Port (with
// ORCA's per-call load reports, for weighted round robin), /metrics and
// /speed on MetricsPort.
func (s *Server) Serve(ctx context.Context, log *slog.Logger) error {
	lis, err := net.Listen("tcp", net.JoinHostPort(s.cfg.IP, fmt.Sprint(cmp.Or(s.cfg.Port, Port))))
	if err != nil {
		return err
	}
	mlis, err := net.Listen("tcp", net.JoinHostPort(s.cfg.IP, fmt.Sprint(cmp.Or(s.cfg.MetricsPort, MetricsPort))))
	if err != nil {
		lis.Close()
		return err
	}
	gs := grpc.NewServer(orca.CallMetricsServerOption(s.orca))
	gs.RegisterService(&serviceDesc, s)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("PUT "+SpeedPath, s.putSpeed)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go s.reportLoad(ctx)
	errs := make(chan error, 2)
	go func() { errs <- gs.Serve(lis) }()
	go func() { errs <- hs.Serve(mlis) }()
	log.Info("serving", "pod", s.cfg.Pod, "address", lis.Addr().String())
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	gs.Stop()
	_ = hs.Close()
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, grpc.ErrServerStopped) {
		err = nil
	}
	return err
}

// serve is one request.
func (s *Server) serve(ctx context.Context) error {
	start := time.Now()
	md, _ := metadata.FromIncomingContext(ctx)
	from, fromWorkload := first(md, CallerNodeKey), first(md, CallerWorkloadKey)
	key, err := CallKey(md)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	s.sleepHop(s.inMs, from, key, workload.DrawHopOut)
	s.metrics.Arrived()
	speed := math.Float64frombits(s.speed.Load())
	mean := s.comp.CPUPerRequest.Seconds() / speed
	s.mu.Lock()
	work := s.comp.DrawCPU(s.draws.Of(key, workload.DrawWork)) / speed * s.overhead.scale(mean)
	s.mu.Unlock()
	s.cpu.Spend(time.Duration(work * float64(time.Second)))
	for i, c := range s.conns {
		out := metadata.AppendToOutgoingContext(ctx, CallerNodeKey, s.cfg.Node, CallerWorkloadKey, ObjectName(s.cfg.Component),
			CallKeyKey, FormatCallKey(workload.ChildKey(key, i)))
		err = Call(out, c.conn)
		s.metrics.Sent(c.workload, status.Code(err))
		if err != nil {
			break
		}
	}
	s.sleepHop(s.outMs, from, key, workload.DrawHopBack)
	s.metrics.Served(fromWorkload, from, status.Code(err), float64(time.Since(start).Microseconds())/1000)
	return err
}

// sleepHop waits one network traversal between this pod's node and from,
// one way (delays), with the call's draw of the scenario's jitter between
// distinct nodes.
func (s *Server) sleepHop(delays map[string]float64, from string, key uint64, hop workload.Draw) {
	ms, ok := delays[from]
	if !ok {
		return
	}
	if from != s.cfg.Node && s.jitter > 0 {
		s.mu.Lock()
		ms = math.Max(0, ms+s.jitter*s.draws.Of(key, hop).NormFloat64())
		s.mu.Unlock()
	}
	time.Sleep(time.Duration(ms * float64(time.Millisecond)))
}

// reportLoad updates what ORCA reports with each answer (the pod's CPU
// utilisation of its limit and its rate of requests) once every sample
// interval, over that interval, as the lab models a backend's metrics
// recorder; and, every second, the overhead each request's work makes room
// for.
func (s *Server) reportLoad(ctx context.Context) {
	go s.every(ctx, s.cfg.Scenario.Control.SampleInterval.Duration, func(d interval) {
		s.orca.SetCPUUtilization(d.cpu / d.seconds / s.cfg.Limit)
		s.orca.SetQPS(d.served / d.seconds)
	})
	s.every(ctx, time.Second, func(d interval) { s.overhead.observe(d.cpu, d.burned, d.arrived, d.served) })
}

// interval is what one period added: the cgroup's CPU, the requests
// answered and arrived, the CPU burned on work (seconds), and its length.
type interval struct{ cpu, served, arrived, burned, seconds float64 }

// every calls f each period with what the period added.
func (s *Server) every(ctx context.Context, period time.Duration, f func(interval)) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	lastCPU, _ := ReadCPUAcct(s.cfg.CPUAcct)
	lastAt := time.Now()
	var last interval
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		cpu, err := ReadCPUAcct(s.cfg.CPUAcct)
		if err != nil {
			continue
		}
		now := interval{cpu: cpu, served: s.metrics.served(), arrived: s.metrics.arrivals(), burned: float64(s.burned.Load()) / 1e9}
		f(interval{cpu: now.cpu - lastCPU, served: now.served - last.served, arrived: now.arrived - last.arrived,
			burned: now.burned - last.burned, seconds: time.Since(lastAt).Seconds()})
		lastCPU, last, lastAt = cpu, now, time.Now()
	}
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

package live

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc/codes"

	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/live/loadgen"
)

// RoleEnv tells a process the harness started which part it plays:
// "backend" (a pod) or "loadgen" (the gateway). Its flags follow.
const RoleEnv = "ARTT_LIVE_ROLE"

// RunRole runs the part role names with its flags and returns the exit
// code. A program that can be the harness calls it first when RoleEnv is
// set (cmd/artt-live, and the live tests' TestMain).
func RunRole(role string, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	var err error
	switch role {
	case "backend":
		err = runBackend(ctx, args, log)
	case "loadgen":
		err = runLoadgen(ctx, args)
	default:
		err = fmt.Errorf("%s=%q: want backend or loadgen", RoleEnv, role)
	}
	if err != nil {
		log.Error("exit", "role", role, "err", err)
		return 1
	}
	return 0
}

// podFlags are what both roles are told of their pod.
type podFlags struct {
	scenario, namespace, pod, node, ip string
	static                             string
	seed                               uint64
}

func (p *podFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&p.scenario, "scenario", "", "scenario: a built-in name or a file")
	fs.StringVar(&p.namespace, "namespace", "", "the run's namespace")
	fs.StringVar(&p.pod, "pod", "", "the pod's name")
	fs.StringVar(&p.node, "node", "", "the scenario node the pod runs on")
	fs.StringVar(&p.ip, "ip", "", "the pod's address")
	fs.Uint64Var(&p.seed, "seed", 1, "the workload's seed: the arrivals' and each call's draws are the lab's at it")
	fs.StringVar(&p.static, "static-endpoints", "", "a JSON file of each callee's endpoints: weighted round robin instead of xDS")
}

// dialerFor reaches the callees through xDS, or, given a file of their
// endpoints, through weighted round robin.
func dialerFor(namespace, static string) (backend.Dialer, error) {
	d := backend.Dialer{Namespace: namespace}
	if static == "" {
		return d, nil
	}
	b, err := os.ReadFile(static)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d.Static); err != nil {
		return d, fmt.Errorf("%s: %w", static, err)
	}
	return d, nil
}

func runBackend(ctx context.Context, args []string, log *slog.Logger) error {
	var p podFlags
	fs := flag.NewFlagSet("backend", flag.ContinueOnError)
	p.define(fs)
	component := fs.String("component", "", "the scenario component the pod is a replica of")
	cpuacct := fs.String("cpuacct", "", "the pod cgroup's cpuacct.usage file (its requests' work)")
	serverAcct := fs.String("server-cpuacct", "", "the cpuacct.usage file of the pod's server beside the work")
	work := fs.String("work-cgroups", "", "comma-separated cgroup directories the threads spending the work join")
	server := fs.String("server-cgroups", "", "comma-separated cgroup directories the rest of the process joins")
	limit := fs.Float64("limit", 1, "the pod's CPU limit in cores")
	speed := fs.Float64("speed", 0, "the node's speed the pod starts at; 0 for the scenario's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	l, err := loadtest.Load(p.scenario)
	if err != nil {
		return err
	}
	dialer, err := dialerFor(p.namespace, p.static)
	if err != nil {
		return err
	}
	s, err := backend.New(backend.Config{Scenario: l.Scenario, Component: *component, Node: p.node, Namespace: p.namespace,
		Pod: p.pod, IP: p.ip, CPUAcct: *cpuacct, ServerCPUAcct: *serverAcct, Limit: *limit, Seed: p.seed, Callees: dialer, Speed: *speed,
		Cgroups: backend.Cgroups{Work: splitList(*work), Server: splitList(*server)}})
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Serve(ctx, log)
}

// genStatus is what the load generator prints each second, one JSON line.
type genStatus struct {
	Started bool `json:"started,omitempty"`
	loadgen.Counts
}

func runLoadgen(ctx context.Context, args []string) error {
	var p podFlags
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	p.define(fs)
	records := fs.String("records", "", "file the requests are written to (CSV)")
	entry := fs.String("entry", "", "the entry component")
	duration := fs.Duration("duration", 0, "how long to send")
	if err := fs.Parse(args); err != nil {
		return err
	}
	l, err := loadtest.Load(p.scenario)
	if err != nil {
		return err
	}
	rate, err := loadtest.Rate(l, "")
	if err != nil {
		return err
	}
	dialer, err := dialerFor(p.namespace, p.static)
	if err != nil {
		return err
	}
	conn, err := dialer.Dial(*entry)
	if err != nil {
		return err
	}
	defer conn.Close()
	m := backend.NewMetrics(p.namespace, p.pod, ingressWorkload, "")
	_, stopMetrics, err := serveHTTP(net.JoinHostPort(p.ip, strconv.Itoa(backend.MetricsPort)), promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	if err != nil {
		return err
	}
	defer stopMetrics()
	g := loadgen.New(loadgen.Config{Rate: rate, Duration: *duration, Timeout: l.Scenario.Workload.Timeout.Duration, Seed: p.seed,
		Node: p.node, Workload: ingressWorkload, Sent: m.Sent})
	enc := json.NewEncoder(os.Stdout)
	_ = enc.Encode(genStatus{Started: true})
	done := make(chan []loadgen.Record, 1)
	go func() { done <- g.Run(ctx, conn, backend.ObjectName(*entry)) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case recs := <-done:
			_ = enc.Encode(genStatus{Counts: g.Counts()})
			return writeRecords(*records, recs)
		case <-tick.C:
			_ = enc.Encode(genStatus{Counts: g.Counts()})
		}
	}
}

// writeRecords writes the requests as CSV: scheduled time (s), latency
// (ms), send lag (µs), gRPC code.
func writeRecords(path string, recs []loadgen.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"at_s", "latency_ms", "lag_us", "code"})
	for _, r := range recs {
		_ = w.Write([]string{strconv.FormatFloat(r.At, 'f', 6, 64), strconv.FormatFloat(r.LatencyMs, 'f', 3, 64),
			strconv.FormatFloat(r.LagUs, 'f', 1, 64), strconv.Itoa(int(r.Code))})
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}

// readRecords reads what writeRecords wrote.
func readRecords(path string) ([]loadgen.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []loadgen.Record
	for i, row := range rows {
		if i == 0 {
			continue
		}
		if len(row) != 4 {
			return nil, fmt.Errorf("%s row %d: %d fields, want 4", path, i+1, len(row))
		}
		var r loadgen.Record
		var code int
		var errs [4]error
		r.At, errs[0] = strconv.ParseFloat(row[0], 64)
		r.LatencyMs, errs[1] = strconv.ParseFloat(row[1], 64)
		r.LagUs, errs[2] = strconv.ParseFloat(row[2], 64)
		code, errs[3] = strconv.Atoi(row[3])
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("%s row %d: %w", path, i+1, err)
		}
		r.Code = codes.Code(code)
		out = append(out, r)
	}
	return out, nil
}

// splitList splits a comma-separated flag; empty is none.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

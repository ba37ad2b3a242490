// Command artt-traffic is ARTT's traffic co-process: it measures the
// cluster through Prometheus, runs a traffic policy (ARTT by default) and
// writes node-to-node weights into Istio DestinationRules. Run two replicas:
// they elect a leader on a Lease and only the leader writes. See
// docs/traffic.md for the labels, flags and queries.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/api"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/artt-dev/artt/internal/httplimit"
	"github.com/artt-dev/artt/internal/logging"
	"github.com/artt-dev/artt/internal/problem"
	"github.com/artt-dev/artt/internal/version"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/allocate"
	"github.com/artt-dev/artt/traffic/controller"
)

type flags struct {
	prometheus, policy, leaseNamespace, metricsAddr, probeAddr string
	topology                                                   string
	dataPlane                                                  controller.DataPlane
	interval, protectInterval, queryTimeout, leaseDuration     time.Duration
	forgetAfter, cfsPeriod                                     time.Duration
	maxResponseBytes                                           int64
	dryRun, labelNodes, leaderElect, leaveToEnvoy, preflight   bool
	logLevel, logFormat                                        string
	queries                                                    controller.Queries
}

// defaultMaxResponseBytes bounds one answer from Prometheus. The largest is
// the node delays, a sample per pair of nodes: a thousand nodes' million
// pairs at about 150 bytes each is 150 MB. A per-pod vector of 10,000 pods
// is 2 MB.
const defaultMaxResponseBytes = 256 << 20

// errVersion asks main to print the version and exit.
var errVersion = errors.New("version requested")

func parseFlags(args []string) (flags, error) {
	f := flags{queries: controller.DefaultQueries()}
	fs := flag.NewFlagSet("artt-traffic", flag.ContinueOnError)
	fs.StringVar(&f.prometheus, "prometheus-address", "http://prometheus-server.monitoring.svc:80", "Prometheus HTTP API base URL")
	fs.StringVar(&f.policy, "policy", "artt", "traffic policy: "+strings.Join(allocate.Names, ", "))
	fs.DurationVar(&f.interval, "interval", 30*time.Second, "measurement and allocation cycle")
	fs.DurationVar(&f.protectInterval, "protect-interval", 15*time.Second, "how often the fast path measures between cycles and cuts or restores a group whose health changed (artt policy; 0 turns it off)")
	fs.DurationVar(&f.queryTimeout, "query-timeout", 10*time.Second, "timeout of each Prometheus query")
	fs.Int64Var(&f.maxResponseBytes, "max-response-bytes", defaultMaxResponseBytes, "largest answer read from Prometheus for one query; past it the collection fails and the last routing stays")
	fs.DurationVar(&f.cfsPeriod, "cfs-quota-period", traffic.CFSPeriod, "the period of the cluster's CPU quotas (the kubelet's --cpu-cfs-quota-period): a pod throttled in a period waited at most that long for its own quota")
	fs.BoolVar(&f.dryRun, "dry-run", false, "compute, log and export allocations, write nothing")
	fs.BoolVar(&f.preflight, "preflight", false, "check, with this account's credentials, what artt-traffic needs of the cluster and Prometheus, print one line per problem and exit: 1 when something it was asked to route cannot be routed")
	fs.StringVar(&f.topology, "topology-configmap", "artt-system/artt-topology", "namespace/name of the ConfigMap where each cycle publishes the measured node delays and call graph for artt-scheduler (empty: publish none)")
	dataPlane := fs.String("data-plane", string(controller.DataPlaneEnvoy), "what carries the weights to the callers: envoy (Istio's sidecars) or grpc (proxyless gRPC, which honours locality weights only under ROUND_ROBIN: where a DestinationRule leaves loadBalancer.simple unset, artt-traffic writes ROUND_ROBIN with a table and LEAST_REQUEST without)")
	fs.BoolVar(&f.leaveToEnvoy, "leave-to-envoy", true, "artt policy: leave a component to Envoy's own least-request (locality load balancing off) when its table would save less network time than the queueing a static split adds; false always writes the table")
	fs.DurationVar(&f.forgetAfter, "forget-after", 10*time.Minute, "artt policy: drop what was learned of a component (and of a component's pods on one node) this long after it was last seen; a Deployment recreated sooner resumes where it was")
	fs.BoolVar(&f.labelNodes, "label-nodes", false, "label nodes that have a region and zone with topology.istio.io/subzone=<node name> (needs the node-labeller RBAC)")
	fs.BoolVar(&f.leaderElect, "leader-elect", true, "elect a leader on a Lease; only the leader writes")
	fs.StringVar(&f.leaseNamespace, "leader-election-namespace", "", "namespace of the Lease (default: the pod's namespace)")
	fs.DurationVar(&f.leaseDuration, "lease-duration", 15*time.Second, "leader lease duration")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", ":8080", "address of /metrics (0 disables)")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log-format", "json", "json or text")
	queryFlags(fs, &f.queries)
	recorded := fs.Bool("recording-rules", false, "read the series deploy/monitoring/recording-rules.yaml records instead of evaluating the nine queries at each collection (a query flag given explicitly still wins)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if *recorded {
		readRecorded(fs, &f.queries)
	}
	if *showVersion {
		return f, errVersion
	}
	// Every problem at once, so one restart fixes them all.
	var problems []error
	if !slices.Contains(allocate.Names, f.policy) {
		problems = append(problems, fmt.Errorf("--policy = %q: must be one of %s", f.policy, strings.Join(allocate.Names, ", ")))
	}
	if f.interval < time.Second {
		problems = append(problems, fmt.Errorf("--interval = %s: must be at least 1s", f.interval))
	}
	if f.protectInterval < 0 || (f.protectInterval > 0 && f.protectInterval < time.Second) {
		problems = append(problems, fmt.Errorf("--protect-interval = %s: must be 0 (off) or at least 1s", f.protectInterval))
	}
	dp, err := controller.ParseDataPlane(*dataPlane)
	if err != nil {
		problems = append(problems, fmt.Errorf("--data-plane = %w", err))
	}
	f.dataPlane = dp
	if f.cfsPeriod < time.Millisecond || f.cfsPeriod > time.Second {
		problems = append(problems, fmt.Errorf("--cfs-quota-period = %s: must be within [1ms, 1s], as the kubelet's", f.cfsPeriod))
	}
	if f.maxResponseBytes < 1 {
		problems = append(problems, fmt.Errorf("--max-response-bytes = %d: must be at least 1", f.maxResponseBytes))
	}
	if f.queryTimeout <= 0 {
		problems = append(problems, fmt.Errorf("--query-timeout = %s: must be positive", f.queryTimeout))
	}
	if f.forgetAfter < f.interval {
		problems = append(problems, fmt.Errorf("--forget-after = %s: must be at least --interval (%s), or a component is forgotten between two cycles", f.forgetAfter, f.interval))
	}
	if len(problems) > 0 {
		return f, errors.Join(problems...)
	}
	return f, nil
}

func main() {
	f, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if errors.Is(err, errVersion) {
		fmt.Println(version.String("artt-traffic"))
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "artt-traffic:", err)
		os.Exit(2)
	}
	log, err := logging.New(os.Stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "artt-traffic:", err)
		os.Exit(2)
	}
	ctrl.SetLogger(logr.FromSlogHandler(log.Handler()))
	if f.preflight {
		blocking, err := preflight(ctrl.SetupSignalHandler(), f, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "artt-traffic --preflight:", err)
			os.Exit(2)
		}
		if blocking {
			os.Exit(1)
		}
		return
	}
	if err := run(ctrl.SetupSignalHandler(), f, log); err != nil {
		log.Error("artt-traffic stopped", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, f flags, log *slog.Logger) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	s, err := controller.Scheme()
	if err != nil {
		return err
	}
	cacheOpts, err := controller.CacheOptions()
	if err != nil {
		return err
	}
	renew := f.leaseDuration * 2 / 3
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        s,
		Cache:                         cacheOpts,
		Metrics:                       metricsserver.Options{BindAddress: f.metricsAddr},
		HealthProbeBindAddress:        f.probeAddr,
		LeaderElection:                f.leaderElect,
		LeaderElectionID:              "artt-traffic",
		LeaderElectionNamespace:       f.leaseNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &f.leaseDuration,
		RenewDeadline:                 &renew,
	})
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	ic, err := istioclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("istio client: %w", err)
	}
	pc, err := api.NewClient(api.Config{Address: f.prometheus, RoundTripper: httplimit.LimitResponses(api.DefaultRoundTripper, f.maxResponseBytes)})
	if err != nil {
		return fmt.Errorf("--prometheus-address = %q: %w", f.prometheus, err)
	}
	c, err := controller.New(mgr.GetClient(), mgr.GetCache(), ic, controller.Options{
		Interval:        f.interval,
		ProtectInterval: protectInterval(f.protectInterval),
		Policy:          f.policy,
		Allocate:        allocateOptions(f),
		DryRun:          f.dryRun,
		LabelNodes:      f.labelNodes,
		Topology:        f.topology,
		DataPlane:       f.dataPlane,
		Collector:       controller.Collector{Client: pc, Queries: f.queries, Timeout: f.queryTimeout},
	}, ctrlmetrics.Registry, log)
	if err != nil {
		return err
	}
	if err := mgr.Add(c); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("informers", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("informer caches not synced")
		}
		return nil
	}); err != nil {
		return err
	}
	log.Info("artt-traffic starting", "policy", f.policy, "interval", f.interval, "dryRun", f.dryRun, "prometheus", f.prometheus)
	return mgr.Start(ctx)
}

// preflight prints every problem the preflight finds, or that it found
// none, and reports whether one blocks routing.
func preflight(ctx context.Context, f flags, out io.Writer) (blocking bool, err error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return false, fmt.Errorf("kubeconfig: %w", err)
	}
	s, err := controller.Scheme()
	if err != nil {
		return false, err
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return false, err
	}
	pc, err := api.NewClient(api.Config{Address: f.prometheus, RoundTripper: httplimit.LimitResponses(api.DefaultRoundTripper, f.maxResponseBytes)})
	if err != nil {
		return false, fmt.Errorf("--prometheus-address = %q: %w", f.prometheus, err)
	}
	col := &controller.Collector{Client: pc, Queries: f.queries, Timeout: f.queryTimeout}
	problems, err := controller.Preflight(ctx, c, col, f.dataPlane, time.Now())
	if err != nil {
		return false, err
	}
	return problem.Print(out, problems, "artt-traffic can read and route every managed Deployment"), nil
}

// queryFlags registers one flag per collection query, defaulting to q's.
func queryFlags(fs *flag.FlagSet, q *controller.Queries) {
	for _, f := range queryFlagsOf(q) {
		fs.StringVar(f.dst, f.flag, *f.dst, f.usage)
	}
}

// queryFlag is a collection query's flag.
type queryFlag struct {
	flag, usage string
	dst         *string
	recorded    func(controller.Queries) string
}

func queryFlagsOf(q *controller.Queries) []queryFlag {
	return []queryFlag{
		{"cpu-query", "PromQL: CPU cores per pod (labels namespace, pod)", &q.CPU, func(r controller.Queries) string { return r.CPU }},
		{"requests-query", "PromQL: requests per second per pod (labels namespace, pod)", &q.Requests, func(r controller.Queries) string { return r.Requests }},
		{"errors-query", "PromQL: failed requests per second per pod (labels namespace, pod)", &q.Errors, func(r controller.Queries) string { return r.Errors }},
		{"latency-query", "PromQL: p95 latency in ms per pod (labels namespace, pod)", &q.Latency, func(r controller.Queries) string { return r.Latency }},
		{"latency-mean-query", "PromQL: mean latency in ms per pod (labels namespace, pod); empty: not read", &q.LatencyMean, func(r controller.Queries) string { return r.LatencyMean }},
		{"calls-query", "PromQL: request rate per caller and callee workload", &q.Calls, func(r controller.Queries) string { return r.Calls }},
		{"delay-query", "PromQL: one-way node-to-node delay in ms (labels source_node, target_node)", &q.Delay, func(r controller.Queries) string { return r.Delay }},
		{"cpu-waiting-query", "PromQL: seconds per second some of a pod's threads waited for a CPU, its CPU pressure (labels namespace, pod); empty: not read", &q.CPUWaiting, func(r controller.Queries) string { return r.CPUWaiting }},
		{"cpu-throttled-query", "PromQL: CFS periods per second in which a pod used up its own CPU quota (labels namespace, pod); empty: not read", &q.CPUThrottled, func(r controller.Queries) string { return r.CPUThrottled }},
		{"cpu-period-query", "PromQL: the period of a pod's CPU quota in seconds (labels namespace, pod); empty: not read, --cfs-quota-period assumed", &q.CPUPeriod, func(r controller.Queries) string { return r.CPUPeriod }},
	}
}

// readRecorded sets every query whose flag was not given to the series
// deploy/monitoring/recording-rules.yaml records for it.
func readRecorded(fs *flag.FlagSet, q *controller.Queries) {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	r := controller.RecordedQueries()
	for _, f := range queryFlagsOf(q) {
		if !given[f.flag] {
			*f.dst = f.recorded(r)
		}
	}
}

// protectInterval maps the flag's 0 (off) to the controller's negative.
func protectInterval(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// allocateOptions are the policies' defaults with the flags applied.
func allocateOptions(f flags) allocate.Options {
	o := allocate.DefaultOptions()
	o.LeaveToEnvoy = f.leaveToEnvoy
	o.ForgetAfter = f.forgetAfter
	o.Health.CFSPeriod = f.cfsPeriod
	return o
}

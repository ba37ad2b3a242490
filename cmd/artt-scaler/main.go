// Command artt-scaler is ARTT's KEDA external scaler: a gRPC server that KEDA
// calls for a ScaledObject's `external` or `external-push` trigger. It serves
// the workload's CPU utilisation against ARTT-HPA's adaptive threshold.
// `artt-scaler check` checks one ScaledObject's triggers against the cluster
// and Prometheus. See docs/scaler.md for the trigger metadata and the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/artt-dev/artt/internal/logging"
	"github.com/artt-dev/artt/internal/version"
	pb "github.com/artt-dev/artt/proto/externalscaler"
	"github.com/artt-dev/artt/scaler"
	"github.com/artt-dev/artt/scaler/scaledobject"
)

type flags struct {
	grpcAddress, httpAddress, prometheus   string
	allowedPrometheus                      []string
	allowQueryOverrides                    bool
	checkScaledObjects                     bool
	kubeconfig                             string
	maxConcurrentPolls, maxRecvBytes       int
	maxResponseBytes                       int
	maxConcurrentStreams                   int
	tlsCert, tlsKey, tlsClientCA           string
	cacheTTL, idleTTL, pushInterval, grace time.Duration
	reuseRanges, compress                  bool
	rangeSettle, rangeGapRetry             time.Duration
	logLevel, logFormat                    string
}

// errVersion asks main to print the version and exit.
var errVersion = errors.New("version requested")

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("artt-scaler", flag.ContinueOnError)
	showVersion := f.define(fs)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if *showVersion {
		return f, errVersion
	}
	return f, f.validate()
}

// define registers every flag on fs, with its default and help.
func (f *flags) define(fs *flag.FlagSet) (showVersion *bool) {
	fs.StringVar(&f.grpcAddress, "grpc-address", ":6000", "address of the gRPC server KEDA calls")
	fs.StringVar(&f.httpAddress, "http-address", ":8080", "address serving /metrics, /healthz and /readyz")
	fs.StringVar(&f.prometheus, "prometheus-address", "", "Prometheus URL used when a trigger sets no prometheusAddress")
	fs.Func("allowed-prometheus", "a Prometheus base URL triggers may name in prometheusAddress (same scheme and host:port, a path at or below); repeat or separate with commas; default: only --prometheus-address", appendList(&f.allowedPrometheus))
	fs.BoolVar(&f.allowQueryOverrides, "allow-query-overrides", false, "let triggers replace the PromQL queries ("+strings.Join(scaler.QueryOverrideKeys, ", ")+"); off, their authors cannot read other namespaces' series")
	fs.IntVar(&f.maxConcurrentPolls, "max-concurrent-polls", 32, "rounds of Prometheus queries in flight at once, across every ScaledObject; a round waits for a slot at most its queryTimeout")
	fs.IntVar(&f.maxRecvBytes, "grpc-max-recv-bytes", 1<<20, "largest gRPC request accepted (KEDA's requests carry a trigger's metadata: a few KiB)")
	fs.IntVar(&f.maxConcurrentStreams, "grpc-max-concurrent-streams", 10000, "gRPC streams per connection; must exceed the ScaledObjects using the push form (one StreamIsActive each)")
	fs.BoolVar(&f.checkScaledObjects, "check-scaledobjects", false, "answer only for a ScaledObject that exists in the namespace the call names and sends its external trigger to the call's scalerAddress (a cached watch of every ScaledObject: needs list and watch on scaledobjects.keda.sh)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "with --check-scaledobjects, the kubeconfig to reach the API server (default: the pod's ServiceAccount)")
	fs.StringVar(&f.tlsCert, "tls-cert-file", "", "server certificate (PEM); enables TLS; reloaded when it changes")
	fs.StringVar(&f.tlsKey, "tls-key-file", "", "server private key (PEM)")
	fs.StringVar(&f.tlsClientCA, "tls-client-ca-file", "", "CA bundle (PEM) that client certificates must chain to; enables mutual TLS")
	fs.DurationVar(&f.cacheTTL, "cache-ttl", 5*time.Second, "how long one round of queries answers every call for a trigger")
	fs.DurationVar(&f.idleTTL, "idle-ttl", 10*time.Minute, "drop a trigger's state after this long without calls")
	fs.BoolVar(&f.reuseRanges, "reuse-ranges", true, "ask Prometheus only for the points of a range query that are new or younger than --range-settle, reusing the rest from the previous poll; off, every poll asks for the whole history")
	fs.IntVar(&f.maxResponseBytes, "max-response-bytes", scaler.DefaultMaxResponseBytes, "largest answer read from Prometheus for one query; past it the query is refused, naming its metadata key (a trigger's queries each return one series)")
	fs.BoolVar(&f.compress, "prometheus-compression", false, "ask Prometheus for gzip-compressed answers (for a Prometheus across a slow link; inside a cluster compression costs both sides more CPU than it saves)")
	fs.DurationVar(&f.rangeSettle, "range-settle", time.Minute, "with --reuse-ranges, the points this close to the previous poll's newest are asked again (raise it when samples reach Prometheus late, e.g. through remote write)")
	fs.DurationVar(&f.rangeGapRetry, "range-gap-retry", 10*time.Minute, "with --reuse-ranges, how often the points Prometheus had no value for are asked again, so a history backfilled into the past is read")
	fs.DurationVar(&f.pushInterval, "push-interval", 15*time.Second, "how often StreamIsActive and StreamMetricSpec re-evaluate")
	fs.DurationVar(&f.grace, "shutdown-grace", 20*time.Second, "time to finish in-flight calls on SIGTERM")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log-format", "json", "json or text")
	return fs.Bool("version", false, "print the version and exit")
}

// appendList is a flag's setter that appends each comma-separated item of
// every use of the flag.
func appendList(dst *[]string) func(string) error {
	return func(v string) error {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				*dst = append(*dst, item)
			}
		}
		return nil
	}
}

// validate reports every problem with the flags at once, so one restart
// fixes them all.
func (f flags) validate() error {
	var problems []error
	for _, u := range f.allowedPrometheus {
		if err := scaler.CheckAllowedPrometheus(u); err != nil {
			problems = append(problems, fmt.Errorf("--allowed-prometheus: %w", err))
		}
	}
	if f.prometheus != "" {
		if err := scaler.CheckAllowedPrometheus(f.prometheus); err != nil {
			problems = append(problems, fmt.Errorf("--prometheus-address: %w", err))
		}
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		problems = append(problems, errors.New("--tls-cert-file and --tls-key-file go together"))
	}
	if f.tlsClientCA != "" && f.tlsCert == "" {
		problems = append(problems, errors.New("--tls-client-ca-file needs --tls-cert-file and --tls-key-file"))
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"--cache-ttl", f.cacheTTL}, {"--idle-ttl", f.idleTTL}, {"--push-interval", f.pushInterval}, {"--shutdown-grace", f.grace}, {"--range-gap-retry", f.rangeGapRetry}} {
		if d.value <= 0 {
			problems = append(problems, fmt.Errorf("%s = %s: must be positive", d.name, d.value))
		}
	}
	for _, n := range []struct {
		name  string
		value int
	}{{"--max-concurrent-polls", f.maxConcurrentPolls}, {"--grpc-max-recv-bytes", f.maxRecvBytes}, {"--grpc-max-concurrent-streams", f.maxConcurrentStreams}, {"--max-response-bytes", f.maxResponseBytes}} {
		if n.value <= 0 {
			problems = append(problems, fmt.Errorf("%s = %d: must be positive", n.name, n.value))
		}
	}
	if f.rangeSettle < 0 {
		problems = append(problems, fmt.Errorf("--range-settle = %s: must not be negative", f.rangeSettle))
	}
	if f.maxConcurrentStreams > math.MaxUint32 {
		problems = append(problems, fmt.Errorf("--grpc-max-concurrent-streams = %d: at most %d", f.maxConcurrentStreams, uint32(math.MaxUint32)))
	}
	return errors.Join(problems...)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "check" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		code := runCheck(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	f, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if errors.Is(err, errVersion) {
		fmt.Println(version.String("artt-scaler"))
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "artt-scaler:", err)
		os.Exit(2)
	}
	log, err := logging.New(os.Stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "artt-scaler:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, f, log); err != nil {
		log.Error("artt-scaler stopped", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, f flags, log *slog.Logger) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	tel := scaler.NewTelemetry(reg)
	source := scaler.NewPrometheusSource(tel.QueryObserver()).ObservePoints(tel.PointsObserver()).
		KeepConnections(3 * f.maxConcurrentPolls).Compress(f.compress).MaxResponseBytes(int64(f.maxResponseBytes))
	if f.reuseRanges {
		source.ReuseRanges(f.rangeSettle, f.idleTTL, f.rangeGapRetry)
	}
	defer source.CloseIdleConnections()
	scaledObjects, err := watchScaledObjects(ctx, f)
	if err != nil {
		return err
	}
	srv := scaler.NewServer(scaler.Options{
		ScaledObjects:      scaledObjects,
		Source:             source,
		DefaultPrometheus:  f.prometheus,
		Tenancy:            scaler.Tenancy{AllowedPrometheus: f.allowedPrometheus, AllowQueryOverrides: f.allowQueryOverrides},
		CacheTTL:           f.cacheTTL,
		IdleTTL:            f.idleTTL,
		PushInterval:       f.pushInterval,
		MaxConcurrentPolls: f.maxConcurrentPolls,
		Logger:             log,
		Telemetry:          tel,
	})
	gs, hs, err := grpcServer(f, tel, srv, log)
	if err != nil {
		return err
	}
	grpcLis, err := net.Listen("tcp", f.grpcAddress)
	if err != nil {
		return fmt.Errorf("--grpc-address %s: %w", f.grpcAddress, err)
	}
	httpLis, err := net.Listen("tcp", f.httpAddress)
	if err != nil {
		return fmt.Errorf("--http-address %s: %w", f.httpAddress, err)
	}
	var ready atomic.Bool
	hsrv := &http.Server{Handler: httpHandler(reg, &ready), ReadHeaderTimeout: 10 * time.Second}

	errs := make(chan error, 2)
	go func() { errs <- gs.Serve(grpcLis) }()
	go func() {
		if err := hsrv.Serve(httpLis); !errors.Is(err, http.ErrServerClosed) {
			errs <- err
		}
	}()
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	go srv.Run(runCtx)

	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(pb.ExternalScaler_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	ready.Store(true)
	log.Info("artt-scaler serving", "grpc", grpcLis.Addr().String(), "http", httpLis.Addr().String(),
		"tls", f.tlsCert != "", "mutualTLS", f.tlsClientCA != "", "defaultPrometheus", f.prometheus)
	select {
	case <-ctx.Done():
	case err := <-errs:
		return err
	}
	ready.Store(false)
	cancelRun()
	return shutdown(f.grace, gs, hs, hsrv, log)
}

// grpcServer is the gRPC server KEDA calls: the external scaler and the
// gRPC health service, with TLS when the flags ask for it.
func grpcServer(f flags, tel *scaler.Telemetry, srv *scaler.Server, log *slog.Logger) (*grpc.Server, *health.Server, error) {
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(f.maxRecvBytes),
		grpc.MaxConcurrentStreams(uint32(f.maxConcurrentStreams)),
		grpc.ChainUnaryInterceptor(tel.UnaryInterceptor),
		grpc.ChainStreamInterceptor(tel.StreamInterceptor),
	}
	if f.tlsCert != "" {
		reloader, err := scaler.NewCertReloader(f.tlsCert, f.tlsKey, f.tlsClientCA, log)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(reloader.TLSConfig())))
	}
	gs := grpc.NewServer(opts...)
	pb.RegisterExternalScalerServer(gs, srv)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	return gs, hs, nil
}

// httpHandler serves /metrics, /healthz, and /readyz while ready is set.
func httpHandler(reg *prometheus.Registry, ready *atomic.Bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// shutdown lets in-flight calls finish for up to grace, then closes the
// rest, and stops the HTTP server.
func shutdown(grace time.Duration, gs *grpc.Server, hs *health.Server, hsrv *http.Server, log *slog.Logger) error {
	log.Info("shutting down", "grace", grace)
	hs.Shutdown()
	done := make(chan struct{})
	go func() { gs.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		log.Warn("grace period over; closing remaining calls")
		gs.Stop()
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hsrv.Shutdown(shutdownCtx)
}

// watchScaledObjects starts the cached watch of ScaledObjects when
// --check-scaledobjects is set (nil otherwise).
func watchScaledObjects(ctx context.Context, f flags) (scaler.Admitter, error) {
	if !f.checkScaledObjects {
		return nil, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--check-scaledobjects: %w", err)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("--check-scaledobjects: %w", err)
	}
	lister, err := scaledobject.Watch(ctx, client, time.Minute)
	if err != nil {
		return nil, err // not a nil *Lister in a non-nil Admitter
	}
	return lister, nil
}

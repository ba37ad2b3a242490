package scaler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/artt-dev/artt/proto/externalscaler"
	"github.com/artt-dev/artt/scaler/metric"
	"github.com/artt-dev/artt/threshold"
)

// Fetcher reads a poll's measurements. PrometheusSource is the production
// implementation.
type Fetcher interface {
	Fetch(ctx context.Context, spec Spec, now time.Time) (metric.Measurements, error)
}

// Options configure a Server.
type Options struct {
	// Source reads measurements.
	Source Fetcher
	// DefaultPrometheus is used when a trigger names no prometheusAddress.
	DefaultPrometheus string
	// Tenancy limits what triggers may choose (default: only
	// DefaultPrometheus, no query overrides).
	Tenancy Tenancy
	// CacheTTL is how long one round of queries answers every call for a
	// trigger (default 5s; KEDA's GetMetrics and IsActive arrive together).
	CacheTTL time.Duration
	// IdleTTL drops a trigger's state after this long without calls (default 10m).
	IdleTTL time.Duration
	// PushInterval is how often streams re-evaluate (default 15s).
	PushInterval time.Duration
	// MaxConcurrentPolls bounds the rounds of queries in flight at once,
	// whatever the number of ScaledObjects (default 32): a thousand
	// triggers polled together must not become a thousand concurrent
	// range queries on the shared Prometheus. A round waits for a slot at
	// most its query timeout, then fails as Unavailable.
	MaxConcurrentPolls int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger (default slog.Default()).
	Logger *slog.Logger
	// Telemetry records metrics; nil records none.
	Telemetry *Telemetry
	// ScaledObjects, when set, admits only calls for a ScaledObject that
	// exists and sends its external trigger to the call's scalerAddress.
	ScaledObjects Admitter
}

// Admitter admits a call for a ScaledObject, or says why not with a gRPC
// status; package scaledobject's cached watch is the one artt-scaler runs.
type Admitter interface {
	Admit(namespace, name string, metadata map[string]string) error
}

// Server implements KEDA's ExternalScaler gRPC service.
type Server struct {
	pb.UnimplementedExternalScalerServer
	opts    Options
	cache   *pollCache
	slots   chan struct{} // one per round in flight
	closing chan struct{} // closed when Run returns: streams end
}

// NewServer returns a Server with defaults filled in.
func NewServer(opts Options) *Server {
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = 5 * time.Second
	}
	if opts.IdleTTL <= 0 {
		opts.IdleTTL = 10 * time.Minute
	}
	if opts.PushInterval <= 0 {
		opts.PushInterval = 15 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxConcurrentPolls <= 0 {
		opts.MaxConcurrentPolls = 32
	}
	return &Server{opts: opts, cache: newPollCache(opts.CacheTTL, opts.Now), slots: make(chan struct{}, opts.MaxConcurrentPolls), closing: make(chan struct{})}
}

// Run drops idle state until ctx ends; then it ends open streams cleanly, so
// a graceful stop does not wait for them and KEDA reconnects elsewhere.
func (s *Server) Run(ctx context.Context) {
	defer close(s.closing)
	tick := time.NewTicker(max(s.opts.IdleTTL/10, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.dropIdle()
		}
	}
}

func (s *Server) dropIdle() {
	gone := s.cache.evictIdle(s.opts.IdleTTL)
	live := s.cache.liveObjects() // once: with many evictions a lookup each would be quadratic
	for _, spec := range gone {
		s.opts.Logger.Info("dropped idle ScaledObject state", "namespace", spec.Namespace, "scaledObject", spec.Name)
		if s.opts.Telemetry != nil && !live[[2]string{spec.Namespace, spec.Name}] {
			s.opts.Telemetry.forget(spec.Namespace, spec.Name)
		}
	}
	if s.opts.Telemetry != nil {
		s.opts.Telemetry.scaledObjects.Set(float64(s.cache.size()))
	}
}

// metricName is the metric a trigger reports; KEDA prefixes it with sN-.
func metricName(f metric.Form) string {
	switch f {
	case metric.FormUtilization:
		return "artt-cpu-utilization"
	case metric.FormPods:
		return "artt-pods"
	}
	return "artt-load"
}

func (s *Server) lookup(ref *pb.ScaledObjectRef) (*pollEntry, error) {
	if ref == nil {
		return nil, status.Error(codes.InvalidArgument, "scaledObjectRef is missing")
	}
	if s.opts.ScaledObjects != nil {
		if err := s.opts.ScaledObjects.Admit(ref.Namespace, ref.Name, ref.ScalerMetadata); err != nil {
			return nil, err
		}
	}
	e, err := s.cache.entry(ref.Namespace, ref.Name, ref.ScalerMetadata, func() (Spec, error) {
		spec, err := ParseMetadata(ref.Namespace, ref.Name, ref.ScalerMetadata, s.opts.DefaultPrometheus)
		if err != nil {
			return Spec{}, err
		}
		if err := s.opts.Tenancy.admit(ref.ScalerMetadata, spec, s.opts.DefaultPrometheus); err != nil {
			return Spec{}, err
		}
		return spec, nil
	})
	if err != nil {
		return nil, toStatus(err)
	}
	return e, nil
}

func (s *Server) evaluate(ctx context.Context, e *pollEntry) (metric.Evaluation, error) {
	ev, err := s.cache.evaluate(ctx, e, s.round)
	if err != nil {
		return metric.Evaluation{}, toStatus(err)
	}
	return ev, nil
}

// round is one poll: queries, then the threshold.
func (s *Server) round(ctx context.Context, spec Spec) (metric.Evaluation, error) {
	wait := time.NewTimer(spec.QueryTimeout)
	defer wait.Stop()
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-wait.C:
		err := fmt.Errorf("%d polls already in flight for %s (--max-concurrent-polls): Prometheus is slower than the polling", cap(s.slots), spec.QueryTimeout)
		s.opts.Logger.Warn("evaluation failed", "namespace", spec.Namespace, "scaledObject", spec.Name, "error", err)
		return metric.Evaluation{}, err
	}
	m, err := s.opts.Source.Fetch(ctx, spec, s.opts.Now())
	if err == nil {
		var ev metric.Evaluation
		ev, err = metric.Evaluate(spec.Settings, m)
		if err == nil {
			if s.opts.Telemetry != nil {
				s.opts.Telemetry.recordEvaluation(spec, ev)
			}
			arrivals, cpu := m.Newest()
			s.opts.Logger.Debug("evaluated", "namespace", spec.Namespace, "scaledObject", spec.Name,
				"arrivals", arrivals, "cpu", cpu, "cpuRequest", m.CPURequest, "form", spec.Form,
				"utilization", ev.Utilization, "threshold", ev.Threshold.Threshold, "value", ev.MetricValue(spec.Form), "target", ev.MetricTarget(spec.Form),
				"trend", ev.Threshold.Trend, "volatility", ev.Threshold.Volatility, "trendWeight", ev.Threshold.TrendWeight,
				"calendarPeriods", ev.Threshold.CalendarPeriods, "active", ev.Active)
			return ev, nil
		}
	}
	s.opts.Logger.Warn("evaluation failed", "namespace", spec.Namespace, "scaledObject", spec.Name, "error", err)
	return metric.Evaluation{}, err
}

// toStatus maps errors to gRPC codes: bad metadata is InvalidArgument;
// anything that stops a measurement is Unavailable, so KEDA neither scales to
// zero nor reads 0, and its fallback engages.
func toStatus(err error) error {
	var md *metric.MetadataError
	var fe *threshold.FieldError
	switch {
	case errors.As(err, &md), errors.As(err, &fe):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	default:
		return status.Error(codes.Unavailable, err.Error())
	}
}

// IsActive reports whether the workload's request rate is above its
// activation request rate.
func (s *Server) IsActive(ctx context.Context, ref *pb.ScaledObjectRef) (*pb.IsActiveResponse, error) {
	e, err := s.lookup(ref)
	if err != nil {
		return nil, err
	}
	ev, err := s.evaluate(ctx, e)
	if err != nil {
		return nil, err
	}
	return &pb.IsActiveResponse{Result: ev.Active}, nil
}

// GetMetricSpec returns the trigger's one metric and its target: a fixed 100
// in the normalized form, the current threshold in the utilization form.
func (s *Server) GetMetricSpec(ctx context.Context, ref *pb.ScaledObjectRef) (*pb.GetMetricSpecResponse, error) {
	e, err := s.lookup(ref)
	if err != nil {
		return nil, err
	}
	spec, err := s.metricSpec(ctx, e)
	if err != nil {
		return nil, err
	}
	return &pb.GetMetricSpecResponse{MetricSpecs: []*pb.MetricSpec{spec}}, nil
}

func (s *Server) metricSpec(ctx context.Context, e *pollEntry) (*pb.MetricSpec, error) {
	target := float64(metric.NormalizedTarget)
	if e.spec.Form == metric.FormPods {
		target = metric.PodsTarget
	}
	if e.spec.Form == metric.FormUtilization {
		ev, err := s.evaluate(ctx, e)
		if err != nil {
			return nil, err
		}
		target = ev.MetricTarget(metric.FormUtilization)
	}
	return &pb.MetricSpec{
		MetricName:      metricName(e.spec.Form),
		TargetSize:      wholeMetric(target),
		TargetSizeFloat: target,
	}, nil
}

// GetMetrics returns the metric's current value.
func (s *Server) GetMetrics(ctx context.Context, req *pb.GetMetricsRequest) (*pb.GetMetricsResponse, error) {
	e, err := s.lookup(req.GetScaledObjectRef())
	if err != nil {
		return nil, err
	}
	if want := metricName(e.spec.Form); req.GetMetricName() != want {
		return nil, status.Errorf(codes.InvalidArgument, "metricName %q: this trigger serves %q", req.GetMetricName(), want)
	}
	ev, err := s.evaluate(ctx, e)
	if err != nil {
		return nil, err
	}
	v := ev.MetricValue(e.spec.Form)
	return &pb.GetMetricsResponse{MetricValues: []*pb.MetricValue{{
		MetricName:       req.GetMetricName(),
		MetricValue:      wholeMetric(v),
		MetricValueFloat: v,
	}}}, nil
}

// StreamIsActive sends the activity at once and again whenever it changes,
// re-evaluating every push interval. Failed rounds send nothing: a stream
// never turns an outage into "inactive".
func (s *Server) StreamIsActive(ref *pb.ScaledObjectRef, stream grpc.ServerStreamingServer[pb.IsActiveResponse]) error {
	e, err := s.lookup(ref)
	if err != nil {
		return err
	}
	var last *bool
	return s.every(stream.Context(), e, func(ctx context.Context) error {
		ev, err := s.evaluate(ctx, e)
		if err != nil {
			return nil
		}
		if last != nil && *last == ev.Active {
			return nil
		}
		last = &ev.Active
		return stream.Send(&pb.IsActiveResponse{Result: ev.Active})
	})
}

// StreamMetricSpec sends the metric spec at once and again whenever its
// target changes. In the normalized form the target never changes, so the
// stream sends once and stays open.
func (s *Server) StreamMetricSpec(ref *pb.ScaledObjectRef, stream grpc.ServerStreamingServer[pb.GetMetricSpecResponse]) error {
	e, err := s.lookup(ref)
	if err != nil {
		return err
	}
	var last *pb.MetricSpec
	return s.every(stream.Context(), e, func(ctx context.Context) error {
		spec, err := s.metricSpec(ctx, e)
		if err != nil {
			return nil
		}
		if last != nil && last.TargetSizeFloat == spec.TargetSizeFloat {
			return nil
		}
		last = spec
		return stream.Send(&pb.GetMetricSpecResponse{MetricSpecs: []*pb.MetricSpec{spec}})
	})
}

// every runs step now and then every push interval until ctx ends or step
// fails, keeping the entry alive meanwhile.
func (s *Server) every(ctx context.Context, e *pollEntry, step func(context.Context) error) error {
	tick := time.NewTicker(s.opts.PushInterval)
	defer tick.Stop()
	for {
		s.cache.touch(e)
		if err := step(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.closing:
			return nil
		case <-tick.C:
		}
	}
}

// UnaryInterceptor counts unary calls by method and code.
func (t *Telemetry) UnaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	t.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return resp, err
}

// StreamInterceptor counts streams by method and final code.
func (t *Telemetry) StreamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	err := handler(srv, ss)
	t.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return err
}

// wholeMetric is v rounded for the protocol's integer fields, held to
// int64's range: converting a float beyond it is undefined in Go (on amd64 a
// utilisation of 1e20% came out as a large negative number). KEDA (2.21)
// reads the float fields when they are positive and the integer ones
// otherwise.
func wholeMetric(v float64) int64 {
	r := math.Round(v)
	switch {
	case math.IsNaN(r):
		return 0
	case r >= math.MaxInt64:
		return math.MaxInt64
	case r <= math.MinInt64:
		return math.MinInt64
	}
	return int64(r)
}

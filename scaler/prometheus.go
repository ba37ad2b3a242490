package scaler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/internal/httplimit"
	"github.com/artt-dev/artt/scaler/metric"
)

// QueryName names one of the queries of a poll, for errors and metrics.
type QueryName string

// The queries of one poll.
const (
	QueryRequestRate QueryName = "requestRate"
	QueryArrivalRate QueryName = "arrivalRate"
	QueryCPUUsage    QueryName = "cpuUsage"
	QueryCPURequest  QueryName = "cpuRequest"
	// QueryPodCPURequest runs in the pods form only.
	QueryPodCPURequest QueryName = "podCPURequest"
	// QueryCalendar runs for the normalization "calendar" only.
	QueryCalendar QueryName = "calendar"
)

// BackendError is a failure to read measurements: Prometheus unreachable,
// timing out or refusing a query. The gRPC layer reports it as Unavailable.
type BackendError struct {
	Query QueryName
	Err   error
}

func (e *BackendError) Error() string { return fmt.Sprintf("query %s: %v", e.Query, e.Err) }
func (e *BackendError) Unwrap() error { return e.Err }

// QueryObserver is told how long each query took and whether it failed.
type QueryObserver func(spec Spec, query QueryName, took time.Duration, err error)

// PointsObserver is told, for each range query, how many points were
// asked of Prometheus and how many were reused from the previous poll.
type PointsObserver func(asked, reused int)

// PrometheusSource reads metric.Measurements from the Prometheus HTTP API.
type PrometheusSource struct {
	observe QueryObserver
	points  PointsObserver
	clients sync.Map    // address → promClient
	ranges  *rangeCache // nil: every poll asks for whole ranges
	// idleConns is how many idle connections to each Prometheus are kept
	// for the next queries.
	idleConns int
	// compress asks Prometheus for gzip-compressed answers. Off by
	// default: polling 1,000 ScaledObjects with reused ranges (make
	// bench-scaler), gzip took about 70% of Prometheus's CPU per round and
	// 45% of the scaler's, to save bandwidth a cluster does not lack.
	compress bool
	// maxResponse bounds each answer's bytes (DefaultMaxResponseBytes).
	maxResponse int64
}

// defaultIdleConns keeps a connection for each query of the default 32
// rounds in flight (three queries each). Go's default of two per host
// would close and re-dial most of them after every burst of polls: on
// 1,000 ScaledObjects, dialling took a tenth of the scaler's CPU.
const defaultIdleConns = 3 * 32

// DefaultMaxResponseBytes bounds one answer from Prometheus. A trigger's
// largest legitimate answer is a range of one series, at most
// metric.MaxPoints (11,000) points of about 40 bytes each: half a MiB. 8 MiB
// leaves room for long label sets; past it, a query matches far more than
// one series, and reading it all would only end in refusing it.
const DefaultMaxResponseBytes = 8 << 20

// NewPrometheusSource returns a source; observe may be nil.
func NewPrometheusSource(observe QueryObserver) *PrometheusSource {
	if observe == nil {
		observe = func(Spec, QueryName, time.Duration, error) {}
	}
	return &PrometheusSource{observe: observe, points: func(int, int) {}, idleConns: defaultIdleConns, maxResponse: DefaultMaxResponseBytes}
}

// MaxResponseBytes bounds each answer read from Prometheus. Call it before
// the first Fetch.
func (p *PrometheusSource) MaxResponseBytes(n int64) *PrometheusSource {
	p.maxResponse = max(n, 1)
	return p
}

// ObservePoints sets the observer of range points asked and reused. Call
// it before the first Fetch.
func (p *PrometheusSource) ObservePoints(observe PointsObserver) *PrometheusSource {
	if observe != nil {
		p.points = observe
	}
	return p
}

// Compress asks Prometheus for gzip-compressed answers: for a Prometheus
// across a slow or metered link. Call it before the first Fetch.
func (p *PrometheusSource) Compress(on bool) *PrometheusSource {
	p.compress = on
	return p
}

// KeepConnections sets how many idle connections to each Prometheus are
// kept for reuse: three per round of queries allowed in flight. Call it
// before the first Fetch.
func (p *PrometheusSource) KeepConnections(n int) *PrometheusSource {
	p.idleConns = max(n, 1)
	return p
}

// ReuseRanges makes later polls ask only for the points of a range query
// that are new or younger than settle before the previous answer's newest
// point, and reuse the rest; points the answers held empty are asked for
// again every gapRetry, and answers no poll asked for within idle are
// dropped. Call it before the first Fetch.
func (p *PrometheusSource) ReuseRanges(settle, idle, gapRetry time.Duration) *PrometheusSource {
	p.ranges = newRangeCache(settle, idle, gapRetry)
	return p
}

// promClient is the API of one Prometheus and the transport under it.
type promClient struct {
	api       promv1.API
	transport *http.Transport
}

func (p *PrometheusSource) client(address string) (promv1.API, error) {
	if c, ok := p.clients.Load(address); ok {
		return c.(promClient).api, nil
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns = 0 // no limit across hosts; per host below
	transport.MaxIdleConnsPerHost = p.idleConns
	transport.DisableCompression = !p.compress
	c, err := api.NewClient(api.Config{Address: address, RoundTripper: httplimit.LimitResponses(transport, p.maxResponse)})
	if err != nil {
		return nil, err
	}
	actual, loaded := p.clients.LoadOrStore(address, promClient{promv1.NewAPI(c), transport})
	if loaded {
		transport.CloseIdleConnections()
	}
	return actual.(promClient).api, nil
}

// CloseIdleConnections closes the connections kept for later queries, on
// shutdown or to count what else is running.
func (p *PrometheusSource) CloseIdleConnections() {
	p.clients.Range(func(_, c any) bool {
		c.(promClient).transport.CloseIdleConnections()
		return true
	})
}

// Fetch runs the poll's queries in parallel, each bounded by the Spec's
// query timeout, and aligns the range results on Spec.Points() instants
// on multiples of the step, the newest at or before now (so successive
// polls share their points).
func (p *PrometheusSource) Fetch(ctx context.Context, spec Spec, now time.Time) (metric.Measurements, error) {
	promAPI, err := p.client(spec.PrometheusAddress)
	if err != nil {
		return metric.Measurements{}, &BackendError{QueryRequestRate, err}
	}
	n := spec.Points()
	end := now.Truncate(spec.Step)
	r := promv1.Range{Start: end.Add(-time.Duration(n-1) * spec.Step), End: end, Step: spec.Step}

	var (
		m    metric.Measurements
		errs [6]error
		wg   sync.WaitGroup
	)
	wg.Add(3)
	if spec.UsesCalendar() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Calendar, errs[5] = p.calendarQuery(ctx, promAPI, spec, now)
		}()
	}
	if spec.Form == metric.FormPods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.PodCPURequest, errs[4] = p.instantQuery(ctx, promAPI, spec, QueryPodCPURequest, spec.PodCPURequestQuery, now)
		}()
	}
	if spec.OfferedLoad {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Arrivals, errs[3] = p.rangeQuery(ctx, promAPI, spec, QueryArrivalRate, spec.ArrivalRateQuery, r, n, now)
		}()
	}
	go func() {
		defer wg.Done()
		m.Demand, errs[0] = p.rangeQuery(ctx, promAPI, spec, QueryRequestRate, spec.RequestRateQuery, r, n, now)
	}()
	go func() {
		defer wg.Done()
		m.CPU, errs[1] = p.rangeQuery(ctx, promAPI, spec, QueryCPUUsage, spec.CPUUsageQuery, r, n, now)
	}()
	go func() {
		defer wg.Done()
		m.CPURequest, errs[2] = p.instantQuery(ctx, promAPI, spec, QueryCPURequest, spec.CPURequestQuery, now)
	}()
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return metric.Measurements{}, err
	}
	return m, nil
}

// calendarQuery returns the calendar's history: Calendar.Points() points
// a calendar step apart, the newest at or before now. The range cache
// (when on) asks only for the newest of them at each poll.
func (p *PrometheusSource) calendarQuery(ctx context.Context, promAPI promv1.API, spec Spec, now time.Time) ([]float64, error) {
	c := spec.Calendar
	n := c.Points()
	end := now.Truncate(c.Step)
	r := promv1.Range{Start: end.Add(-time.Duration(n-1) * c.Step), End: end, Step: c.Step}
	return p.rangeQuery(ctx, promAPI, spec, QueryCalendar, spec.CalendarQuery, r, n, now)
}

// rangeQuery returns the query's n points of r, asking Prometheus only for
// those the range cache does not hold settled.
func (p *PrometheusSource) rangeQuery(ctx context.Context, promAPI promv1.API, spec Spec, name QueryName, q string, r promv1.Range, n int, now time.Time) ([]float64, error) {
	key := rangeKey{address: spec.PrometheusAddress, query: q, step: r.Step, points: n}
	var out []float64
	first := 0
	if p.ranges != nil {
		out, first = p.ranges.known(key, r.End, now)
	} else {
		out = unknownPoints(n)
	}
	if first < n {
		ask := r
		ask.Start = r.Start.Add(time.Duration(first) * r.Step)
		if err := p.fill(ctx, promAPI, spec, name, q, ask, r.Start, out); err != nil {
			return nil, err
		}
	}
	p.points(n-first, first)
	if p.ranges != nil {
		p.ranges.store(key, r.End, out, first, now)
	}
	return out, nil
}

// fill runs the range query ask and writes its points into out, indexed
// from start.
func (p *PrometheusSource) fill(ctx context.Context, promAPI promv1.API, spec Spec, name QueryName, q string, ask promv1.Range, start time.Time, out []float64) error {
	ctx, cancel := context.WithTimeout(ctx, spec.QueryTimeout)
	defer cancel()
	began := time.Now()
	v, _, err := promAPI.QueryRange(ctx, q, ask, promv1.WithTimeout(spec.QueryTimeout))
	p.observe(spec, name, time.Since(began), err)
	if err != nil {
		return queryError(name, q, err)
	}
	matrix, ok := v.(model.Matrix)
	if !ok {
		return &BackendError{name, fmt.Errorf("got a %s, want a range vector", v.Type())}
	}
	switch len(matrix) {
	case 0:
		return nil
	case 1:
	default:
		return &metric.MetadataError{Key: queryKey[name], Value: q, Reason: fmt.Sprintf("returned %d series; it must return one (aggregate with sum())", len(matrix))}
	}
	for _, s := range matrix[0].Values {
		i := int(math.Round(float64(s.Timestamp.Time().Sub(start)) / float64(ask.Step)))
		if i >= 0 && i < len(out) {
			out[i] = float64(s.Value)
		}
	}
	return nil
}

func (p *PrometheusSource) instantQuery(ctx context.Context, promAPI promv1.API, spec Spec, name QueryName, q string, at time.Time) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, spec.QueryTimeout)
	defer cancel()
	start := time.Now()
	v, _, err := promAPI.Query(ctx, q, at, promv1.WithTimeout(spec.QueryTimeout))
	p.observe(spec, name, time.Since(start), err)
	if err != nil {
		return 0, queryError(name, q, err)
	}
	switch v := v.(type) {
	case model.Vector:
		switch len(v) {
		case 0:
			return 0, nil
		case 1:
			return float64(v[0].Value), nil
		default:
			return 0, &metric.MetadataError{Key: queryKey[name], Value: q, Reason: fmt.Sprintf("returned %d series; it must return one (aggregate with sum())", len(v))}
		}
	case *model.Scalar:
		return float64(v.Value), nil
	default:
		return 0, &BackendError{name, fmt.Errorf("got a %s, want an instant vector", v.Type())}
	}
}

// queryKey maps a query to the metadata key that overrides it.
var queryKey = map[QueryName]string{
	QueryRequestRate:   "requestRateQuery",
	QueryArrivalRate:   "arrivalRateQuery",
	QueryCPUUsage:      "cpuUsageQuery",
	QueryCPURequest:    "cpuRequestQuery",
	QueryPodCPURequest: "podCPURequestQuery",
	QueryCalendar:      "calendarQuery",
}

// queryError tells a query Prometheus refuses as malformed (the metadata's
// fault) from a failure to reach or run it (the backend's).
func queryError(name QueryName, q string, err error) error {
	var perr *promv1.Error
	if errors.As(err, &perr) && perr.Type == promv1.ErrBadData {
		return &metric.MetadataError{Key: queryKey[name], Value: q, Reason: "Prometheus refused the query: " + perr.Msg}
	}
	var tooLarge *httplimit.ResponseTooLargeError
	if errors.As(err, &tooLarge) {
		return &metric.MetadataError{Key: queryKey[name], Value: q, Reason: tooLarge.Error() + ": it must return one series (aggregate with sum())"}
	}
	return &BackendError{name, err}
}

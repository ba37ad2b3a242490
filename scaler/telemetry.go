package scaler

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/artt-dev/artt/scaler/metric"
)

// Telemetry is the scaler's /metrics: per ScaledObject the threshold and its
// parts, and query latency. Label sets are bounded by the live ScaledObjects:
// a ScaledObject's series are deleted when its state is dropped.
type Telemetry struct {
	parts         map[string]*prometheus.GaugeVec
	queryDuration *prometheus.HistogramVec
	queryFailures *prometheus.CounterVec
	scaledObjects prometheus.Gauge
	rpcs          *prometheus.CounterVec
	rangePoints   *prometheus.CounterVec
}

// evaluationParts are the gauges set after every round, with how to read
// each from an evaluation.
var evaluationParts = []struct {
	name, help string
	value      func(Spec, metric.Evaluation) float64
}{
	{"threshold_percent", "Adaptive CPU utilisation threshold, percent of the CPU request.", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.Threshold }},
	{"utilization_percent", "CPU usage as a percentage of the CPU requested.", func(_ Spec, e metric.Evaluation) float64 { return e.Utilization }},
	{"metric_value", "Value reported to the HPA for the trigger's metric form.", func(s Spec, e metric.Evaluation) float64 { return e.MetricValue(s.Form) }},
	{"offered_utilization_percent", "CPU the arriving requests need, percent of the CPU requested (what the metric compares with the threshold).", func(_ Spec, e metric.Evaluation) float64 { return e.OfferedUtilization }},
	{"request_rate", "Requests per second served now.", func(_ Spec, e metric.Evaluation) float64 { return e.RequestRate }},
	{"arrival_rate", "Requests per second arriving now (the served rate where arrivals are not measured).", func(_ Spec, e metric.Evaluation) float64 { return e.ArrivalRate }},
	{"trend", "Fitted demand slope, requests per second per sample.", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.Trend }},
	{"volatility", "Mean absolute residual of the demand fit, requests per second.", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.Volatility }},
	{"scaled_volatility", "Volatility times per-request CPU cost (ARTT mode).", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.ScaledVolatility }},
	{"cost_per_request_seconds", "CPU seconds per request used to scale volatility.", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.CostPerRequest }},
	{"normalized_trend", "Trend normalised to [0, 1].", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.NormalizedTrend }},
	{"normalized_volatility", "Volatility normalised to [0, 1].", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.NormalizedVolatility }},
	{"trend_weight", "Weight of the trend in the threshold.", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.TrendWeight }},
	{"volatility_weight", "Weight of the volatility in the threshold.", func(_ Spec, e metric.Evaluation) float64 { return e.Threshold.VolatilityWeight }},
	{"active", "1 when the workload is active (request rate above activationRequestRate).", func(_ Spec, e metric.Evaluation) float64 {
		if e.Active {
			return 1
		}
		return 0
	}},
}

// NewTelemetry registers the scaler's metrics with reg.
func NewTelemetry(reg prometheus.Registerer) *Telemetry {
	t := &Telemetry{
		parts: make(map[string]*prometheus.GaugeVec, len(evaluationParts)),
		queryDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "artt_scaler", Name: "query_duration_seconds",
			Help:    "Latency of Prometheus queries per ScaledObject and query.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"namespace", "scaledobject", "query"}),
		queryFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "artt_scaler", Name: "query_failures_total",
			Help: "Failed Prometheus queries per ScaledObject and query.",
		}, []string{"namespace", "scaledobject", "query"}),
		scaledObjects: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "artt_scaler", Name: "scaledobjects",
			Help: "ScaledObject triggers with live state.",
		}),
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "artt_scaler", Name: "grpc_requests_total",
			Help: "gRPC requests by method and status code.",
		}, []string{"method", "code"}),
		rangePoints: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "artt_scaler", Name: "range_points_total",
			Help: "Points of range queries, asked of Prometheus or reused from the previous poll (--reuse-ranges).",
		}, []string{"origin"}),
	}
	for _, p := range evaluationParts {
		t.parts[p.name] = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "artt_scaler", Name: p.name, Help: p.help,
		}, []string{"namespace", "scaledobject"})
		reg.MustRegister(t.parts[p.name])
	}
	reg.MustRegister(t.queryDuration, t.queryFailures, t.scaledObjects, t.rpcs, t.rangePoints)
	return t
}

func (t *Telemetry) recordEvaluation(s Spec, e metric.Evaluation) {
	for _, p := range evaluationParts {
		t.parts[p.name].WithLabelValues(s.Namespace, s.Name).Set(p.value(s, e))
	}
}

func (t *Telemetry) recordQuery(s Spec, q QueryName, took time.Duration, err error) {
	t.queryDuration.WithLabelValues(s.Namespace, s.Name, string(q)).Observe(took.Seconds())
	if err != nil {
		t.queryFailures.WithLabelValues(s.Namespace, s.Name, string(q)).Inc()
	}
}

func (t *Telemetry) forget(namespace, name string) {
	labels := prometheus.Labels{"namespace": namespace, "scaledobject": name}
	for _, g := range t.parts {
		g.Delete(labels)
	}
	t.queryDuration.DeletePartialMatch(labels)
	t.queryFailures.DeletePartialMatch(labels)
}

// QueryObserver returns an observer for PrometheusSource that records each
// query's latency and failures.
func (t *Telemetry) QueryObserver() QueryObserver {
	return t.recordQuery
}

// PointsObserver returns an observer for PrometheusSource that counts the
// range points asked of Prometheus and those reused.
func (t *Telemetry) PointsObserver() PointsObserver {
	asked, reused := t.rangePoints.WithLabelValues("asked"), t.rangePoints.WithLabelValues("reused")
	return func(a, r int) {
		asked.Add(float64(a))
		reused.Add(float64(r))
	}
}

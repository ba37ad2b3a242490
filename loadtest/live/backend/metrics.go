package backend

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
)

// WorkCounter is the series of the CPU spent on requests' own work;
// ServerCounter that of the rest of the pod's server, in its own cgroup
// beside the pod's. FirstArrivalGauge is when the pod's first request
// arrived, in seconds since the Unix epoch (0 before): when the clients'
// balancers first sent it one.
const (
	WorkCounter       = "artt_live_work_cpu_seconds_total"
	ServerCounter     = "artt_live_server_cpu_seconds_total"
	FirstArrivalGauge = "artt_live_first_arrival_timestamp_seconds"
)

// FirstArrivalAt is the time a FirstArrivalGauge value says; zero for 0,
// the gauge's value before any request.
func FirstArrivalAt(v float64) time.Time {
	if v <= 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(v*1e9))
}

// istioBuckets are the bounds of Istio's istio_request_duration_milliseconds.
var istioBuckets = []float64{0.5, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 600000, 1800000, 3600000}

// Metrics are one pod's series, under the names and labels of Istio's
// standard metrics and cAdvisor's CPU counter.
type Metrics struct {
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	received *prometheus.CounterVec
	arrived  prometheus.Counter
	first    prometheus.Gauge
	ns, pod  string
	workload string
	answered atomic.Int64
	arrivedN atomic.Int64
}

// NewMetrics registers a pod's series; cpuacct is its cgroup's
// cpuacct.usage file (empty: no CPU series, as for the load generator).
func NewMetrics(namespace, pod, workload, cpuacct string) *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry(), ns: namespace, pod: pod, workload: workload}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "istio_requests_total", Help: "Requests, as Istio's sidecar reports them from either end.",
	}, []string{"reporter", "namespace", "pod", "source_workload", "source_workload_namespace", "destination_workload", "destination_workload_namespace", "response_code"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "istio_request_duration_milliseconds", Help: "Request duration at the destination, in milliseconds.", Buckets: istioBuckets,
	}, []string{"reporter", "namespace", "pod", "source_workload", "destination_workload"})
	m.received = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "artt_live_requests_received_total", Help: "Requests this pod received, by the caller's node.",
	}, []string{"namespace", "pod", "source_node"})
	// The sidecar's inbound listener counts a request when its headers
	// arrive, before any queue: what artt-scaler's arrival query reads.
	m.arrived = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "envoy_http_downstream_rq_total", Help: "Requests arrived, as Envoy's inbound listener counts them.",
		ConstLabels: prometheus.Labels{"namespace": namespace, "pod": pod, "envoy_http_conn_manager_prefix": fmt.Sprintf("inbound_0.0.0.0_%d", Port)},
	})
	m.first = prometheus.NewGauge(prometheus.GaugeOpts{Name: FirstArrivalGauge, Help: "When the first request arrived, in seconds since the Unix epoch (0 before).",
		ConstLabels: prometheus.Labels{"namespace": namespace, "pod": pod}})
	m.Registry.MustRegister(m.requests, m.duration, m.received, m.arrived, m.first)
	if cpuacct != "" {
		m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "container_cpu_usage_seconds_total", Help: "CPU time of the pod's cgroup, as cAdvisor reports it.",
			ConstLabels: prometheus.Labels{"namespace": namespace, "pod": pod, "container": "app"},
		}, func() float64 { v, _ := ReadCPUAcct(cpuacct); return v }))
	}
	return m
}

// countWork exports the CPU spent on requests' own work, burned counting
// it in nanoseconds as it is spent: beside the cgroup's CPU it says how much
// of the pod's CPU went to the work itself.
func (m *Metrics) countWork(burned *atomic.Int64) {
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: WorkCounter, Help: "CPU spent on requests' own work, in seconds.",
	}, func() float64 { return float64(burned.Load()) / 1e9 }))
}

// countServer exports the CPU of the server beside the work, from its
// cgroup's cpuacct.usage file (empty: none).
func (m *Metrics) countServer(cpuacct string) {
	if cpuacct == "" {
		return
	}
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: ServerCounter, Help: "CPU of the pod's server beside its requests' work (gRPC, HTTP/2, metrics, the Go runtime), in seconds.",
	}, func() float64 { v, _ := ReadCPUAcct(cpuacct); return v }))
}

// Arrived records a request that reached this pod.
func (m *Metrics) Arrived() {
	m.arrived.Inc()
	if m.arrivedN.Add(1) == 1 {
		m.first.SetToCurrentTime()
	}
}

// Served records a request this pod answered.
func (m *Metrics) Served(sourceWorkload, sourceNode string, code codes.Code, ms float64) {
	m.requests.WithLabelValues("destination", m.ns, m.pod, sourceWorkload, m.ns, m.workload, m.ns, httpCode(code)).Inc()
	m.duration.WithLabelValues("destination", m.ns, m.pod, sourceWorkload, m.workload).Observe(ms)
	m.received.WithLabelValues(m.ns, m.pod, sourceNode).Inc()
	m.answered.Add(1)
}

// Sent records a call this pod made to a callee workload.
func (m *Metrics) Sent(destination string, code codes.Code) {
	m.requests.WithLabelValues("source", m.ns, m.pod, m.workload, m.ns, destination, m.ns, httpCode(code)).Inc()
}

// httpCode is the response_code Istio reports for a gRPC status.
func httpCode(c codes.Code) string {
	switch c {
	case codes.OK:
		return "200"
	case codes.Unavailable:
		return "503"
	case codes.DeadlineExceeded:
		return "504"
	}
	return "500"
}

// arrivals is how many requests have reached this pod.
func (m *Metrics) arrivals() float64 { return float64(m.arrivedN.Load()) }

// ReadCPUAcct reads a cgroup's cpuacct.usage, in seconds.
func ReadCPUAcct(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, err
	}
	return float64(ns) / 1e9, nil
}

// served is how many requests this pod has answered.
func (m *Metrics) served() float64 { return float64(m.answered.Load()) }

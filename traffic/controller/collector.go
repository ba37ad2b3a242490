package controller

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"

	"github.com/artt-dev/artt/internal/promvector"
)

// Queries are the PromQL expressions of one collection. Each returns an
// instant vector with the labels named in its comment.
type Queries struct {
	// CPU per pod in cores; labels namespace, pod.
	CPU string
	// Requests per second served per pod; labels namespace, pod.
	Requests string
	// Failed requests per second per pod; labels namespace, pod.
	Errors string
	// p95 latency per pod in milliseconds; labels namespace, pod.
	Latency string
	// Mean latency per pod in milliseconds over the same requests; labels
	// namespace, pod. Empty: not read.
	LatencyMean string
	// Request rate per caller and callee workload; labels
	// source_workload_namespace, source_workload,
	// destination_workload_namespace, destination_workload.
	Calls string
	// One-way node-to-node delay in milliseconds; labels source_node,
	// target_node.
	Delay string
	// Seconds per second some of a pod's runnable threads waited for a
	// CPU (its CPU pressure, PSI "some"); labels namespace, pod. Empty:
	// not read.
	CPUWaiting string
	// CFS periods per second in which a pod's containers used up their
	// own CPU quota; labels namespace, pod. Empty: not read.
	CPUThrottled string
	// The period of a pod's CPU quota, in seconds; labels namespace,
	// pod. Empty: not read (the kubelet's default is assumed).
	CPUPeriod string
}

// DefaultQueries work with cAdvisor, Istio's standard metrics and the
// blackbox-exporter probes in deploy/examples/node-probes (docs/traffic.md,
// "Measurements"). Each rate is irate: the rate between the last two scrapes
// within a minute, so a measurement is of the last scrape interval. That is
// what the forecasts, the fast path and the health timers take a
// measurement to be (one sample each, seconds apart); a rate over the
// minute is a moving average of several scrapes, which delays every
// reaction by up to the minute, and after a rise in load it weighs the CPU
// by time but the p95 by requests, so a pod turned busy reads idle while
// its latency already counts.
func DefaultQueries() Queries {
	return Queries{
		CPU:      `sum by (namespace, pod) (irate(container_cpu_usage_seconds_total{container!="",container!="POD"}[1m]))`,
		Requests: `sum by (namespace, pod) (irate(istio_requests_total{reporter="destination"}[1m]))`,
		Errors:   `sum by (namespace, pod) (irate(istio_requests_total{reporter="destination",response_code=~"5.."}[1m]))`,
		Latency:  `histogram_quantile(0.95, sum by (namespace, pod, le) (irate(istio_request_duration_milliseconds_bucket{reporter="destination"}[1m])))`,
		// The histogram's sum over its count: the mean, exact where a p95
		// over a few requests is interpolated inside a bucket.
		LatencyMean: `sum by (namespace, pod) (irate(istio_request_duration_milliseconds_sum{reporter="destination"}[1m])) / sum by (namespace, pod) (irate(istio_request_duration_milliseconds_count{reporter="destination"}[1m]))`,
		Calls:       `sum by (source_workload_namespace, source_workload, destination_workload_namespace, destination_workload) (irate(istio_requests_total{reporter="source"}[1m]))`,
		Delay:       `avg by (source_node, target_node) (probe_duration_seconds{job="artt-node-probe"}) * 1000 / 2`,
		// cAdvisor exports each container's cgroup CPU pressure on cgroup
		// v2 nodes and its throttled periods wherever it has a CPU limit;
		// both are summed over the containers the CPU query sums.
		CPUWaiting:   `sum by (namespace, pod) (irate(container_pressure_cpu_waiting_seconds_total{container!="",container!="POD"}[1m]))`,
		CPUThrottled: `sum by (namespace, pod) (irate(container_cpu_cfs_throttled_periods_total{container!="",container!="POD"}[1m]))`,
		// The throttled periods count in the pod's own period, which the
		// kubelet's --cpu-cfs-quota-period sets (100 ms by default).
		CPUPeriod: cpuPeriodQuery,
	}
}

// RecordedQueries read the series deploy/monitoring/recording-rules.yaml
// records, each from its DefaultQueries expression: on a large cluster a
// collection then reads nine recorded vectors instead of evaluating nine
// queries over every pod's series.
func RecordedQueries() Queries {
	return Queries{
		CPU:          "artt:pod_cpu_cores:irate1m",
		Requests:     "artt:pod_requests:irate1m",
		Errors:       "artt:pod_errors:irate1m",
		Latency:      "artt:pod_latency_p95_milliseconds:irate1m",
		LatencyMean:  "artt:pod_latency_mean_milliseconds:irate1m",
		Calls:        "artt:workload_calls:irate1m",
		Delay:        "artt:node_delay_milliseconds:avg",
		CPUWaiting:   "artt:pod_cpu_waiting_seconds:irate1m",
		CPUThrottled: "artt:pod_cpu_throttled_periods:irate1m",
		// A gauge of the pods' specs, cheap to read as it is.
		CPUPeriod: cpuPeriodQuery,
	}
}

const cpuPeriodQuery = `max by (namespace, pod) (container_spec_cpu_period{container!="",container!="POD"}) / 1e6`

// podKey names a pod.
type podKey struct{ namespace, pod string }

// workloadKey names a workload.
type workloadKey struct{ namespace, name string }

// Measurements are one collection's results. Missing entries are unknown.
type Measurements struct {
	At                             time.Time
	CPU, Requests, Errors, Latency map[podKey]float64
	LatencyMean                    map[podKey]float64
	CPUWaiting, CPUThrottled       map[podKey]float64
	CPUPeriod                      map[podKey]float64 // seconds
	Calls                          map[[2]workloadKey]float64
	DelayMs                        map[[2]string]float64
}

// Collector runs the queries against Prometheus.
type Collector struct {
	Client  api.Client
	Queries Queries
	Timeout time.Duration
}

// Collect runs every query at once, each bounded by the timeout; any failure
// fails the collection (the caller keeps the last routing). Answers are
// read by promvector, label by label, not into a map per sample: a fleet's
// delay query alone answers 250,000 samples.
func (c Collector) Collect(ctx context.Context, now time.Time) (*Measurements, error) {
	m := &Measurements{At: now}
	type job struct {
		name, query string
		labels      []string
		store       func(labels []string, v float64)
	}
	podLabels := []string{"namespace", "pod"}
	pods := func(dst *map[podKey]float64) func([]string, float64) {
		*dst = make(map[podKey]float64)
		return func(l []string, f float64) {
			if !math.IsNaN(f) && !math.IsInf(f, 0) && f >= 0 {
				(*dst)[podKey{l[0], l[1]}] = f
			}
		}
	}
	m.Calls = make(map[[2]workloadKey]float64)
	m.DelayMs = make(map[[2]string]float64)
	jobs := []job{
		{"cpu", c.Queries.CPU, podLabels, pods(&m.CPU)},
		{"requests", c.Queries.Requests, podLabels, pods(&m.Requests)},
		{"errors", c.Queries.Errors, podLabels, pods(&m.Errors)},
		{"latency", c.Queries.Latency, podLabels, pods(&m.Latency)},
		{"calls", c.Queries.Calls, []string{"source_workload_namespace", "source_workload", "destination_workload_namespace", "destination_workload"}, func(l []string, f float64) {
			if f >= 0 && !math.IsInf(f, 0) {
				m.Calls[[2]workloadKey{{l[0], l[1]}, {l[2], l[3]}}] += f
			}
		}},
		{"delay", c.Queries.Delay, []string{"source_node", "target_node"}, func(l []string, f float64) {
			if f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f) {
				m.DelayMs[[2]string{l[0], l[1]}] = f
			}
		}},
	}
	for _, j := range []job{
		{"latency-mean", c.Queries.LatencyMean, podLabels, pods(&m.LatencyMean)},
		{"cpu-waiting", c.Queries.CPUWaiting, podLabels, pods(&m.CPUWaiting)},
		{"cpu-throttled", c.Queries.CPUThrottled, podLabels, pods(&m.CPUThrottled)},
		{"cpu-period", c.Queries.CPUPeriod, podLabels, pods(&m.CPUPeriod)},
	} {
		if j.query != "" {
			jobs = append(jobs, j)
		}
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qctx, cancel := context.WithTimeout(ctx, c.Timeout)
			defer cancel()
			if err := promvector.Query(qctx, c.Client, j.query, now, c.Timeout, j.labels, j.store); err != nil {
				errs[i] = fmt.Errorf("query %s: %w", j.name, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

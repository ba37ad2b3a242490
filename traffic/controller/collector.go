package controller

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
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
	// Request rate per caller and callee workload; labels
	// source_workload_namespace, source_workload,
	// destination_workload_namespace, destination_workload.
	Calls string
	// One-way node-to-node delay in milliseconds; labels source_node,
	// target_node.
	Delay string
}

// DefaultQueries work with cAdvisor, Istio's standard metrics and the
// blackbox-exporter probes in deploy/examples/node-probes (README, "Measurements").
func DefaultQueries() Queries {
	return Queries{
		CPU:      `sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{container!="",container!="POD"}[1m]))`,
		Requests: `sum by (namespace, pod) (rate(istio_requests_total{reporter="destination"}[1m]))`,
		Errors:   `sum by (namespace, pod) (rate(istio_requests_total{reporter="destination",response_code=~"5.."}[1m]))`,
		Latency:  `histogram_quantile(0.95, sum by (namespace, pod, le) (rate(istio_request_duration_milliseconds_bucket{reporter="destination"}[1m])))`,
		Calls:    `sum by (source_workload_namespace, source_workload, destination_workload_namespace, destination_workload) (rate(istio_requests_total{reporter="source"}[1m]))`,
		Delay:    `avg by (source_node, target_node) (probe_duration_seconds{job="artt-node-probe"}) * 1000 / 2`,
	}
}

// podKey names a pod.
type podKey struct{ namespace, pod string }

// workloadKey names a workload.
type workloadKey struct{ namespace, name string }

// Measurements are one collection's results. Missing entries are unknown.
type Measurements struct {
	At                             time.Time
	CPU, Requests, Errors, Latency map[podKey]float64
	Calls                          map[[2]workloadKey]float64
	DelayMs                        map[[2]string]float64
}

// Collector runs the queries against Prometheus.
type Collector struct {
	API     promv1.API
	Queries Queries
	Timeout time.Duration
}

// Collect runs every query at once, each bounded by the timeout; any failure
// fails the collection (the caller keeps the last routing).
func (c Collector) Collect(ctx context.Context, now time.Time) (*Measurements, error) {
	m := &Measurements{At: now}
	type job struct {
		name, query string
		store       func(model.Vector) error
	}
	pods := func(dst *map[podKey]float64) func(model.Vector) error {
		return func(v model.Vector) error {
			*dst = make(map[podKey]float64, len(v))
			for _, s := range v {
				if f := float64(s.Value); !math.IsNaN(f) && !math.IsInf(f, 0) && f >= 0 {
					(*dst)[podKey{string(s.Metric["namespace"]), string(s.Metric["pod"])}] = f
				}
			}
			return nil
		}
	}
	jobs := []job{
		{"cpu", c.Queries.CPU, pods(&m.CPU)},
		{"requests", c.Queries.Requests, pods(&m.Requests)},
		{"errors", c.Queries.Errors, pods(&m.Errors)},
		{"latency", c.Queries.Latency, pods(&m.Latency)},
		{"calls", c.Queries.Calls, func(v model.Vector) error {
			m.Calls = make(map[[2]workloadKey]float64, len(v))
			for _, s := range v {
				from := workloadKey{string(s.Metric["source_workload_namespace"]), string(s.Metric["source_workload"])}
				to := workloadKey{string(s.Metric["destination_workload_namespace"]), string(s.Metric["destination_workload"])}
				if f := float64(s.Value); f >= 0 && !math.IsInf(f, 0) {
					m.Calls[[2]workloadKey{from, to}] += f
				}
			}
			return nil
		}},
		{"delay", c.Queries.Delay, func(v model.Vector) error {
			m.DelayMs = make(map[[2]string]float64, len(v))
			for _, s := range v {
				if f := float64(s.Value); f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f) {
					m.DelayMs[[2]string{string(s.Metric["source_node"]), string(s.Metric["target_node"])}] = f
				}
			}
			return nil
		}},
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qctx, cancel := context.WithTimeout(ctx, c.Timeout)
			defer cancel()
			v, _, err := c.API.Query(qctx, j.query, now, promv1.WithTimeout(c.Timeout))
			if err != nil {
				errs[i] = fmt.Errorf("query %s: %w", j.name, err)
				return
			}
			vec, ok := v.(model.Vector)
			if !ok {
				errs[i] = fmt.Errorf("query %s: got a %s, want an instant vector", j.name, v.Type())
				return
			}
			errs[i] = j.store(vec)
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

package importer

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// exporter is where a family of series comes from, and what to install
// when it is missing.
type exporter struct{ name, install string }

var (
	kubeStateMetrics = exporter{"kube-state-metrics", "install kube-state-metrics and let Prometheus scrape it"}
	cadvisor         = exporter{"cAdvisor", "let Prometheus scrape the kubelets' /metrics/cadvisor endpoints"}
	istioTelemetry   = exporter{"Istio's standard metrics", "install Istio with its default telemetry and scrape the sidecars with namespace and pod target labels (docs/traffic.md, \"Measurements\")"}
	nodeProbes       = exporter{"node-to-node probes", "deploy deploy/examples/node-probes with the scrape jobs hack/node-probe-scrape-config.sh prints, or pass --default-delay"}
)

// missingError is a query that returned nothing: it names the query and
// what to install.
type missingError struct {
	what, query string
	from        exporter
}

func (e *missingError) Error() string {
	return fmt.Sprintf("no %s from %s in Prometheus (query %s): %s", e.what, e.from.name, e.query, e.from.install)
}

// querier runs the importer's queries at one instant.
type querier struct {
	api promv1.API
	at  time.Time
	// window is the PromQL range of the imported period, e.g. "3600s".
	window string
}

// vector runs an instant query and returns its samples, dropping NaN and
// infinite values.
func (q querier) vector(ctx context.Context, expr string) (model.Vector, error) {
	// Prometheus' warnings concern partial data from remote reads; what
	// matters here is whether series came back, which the callers judge.
	v, _, err := q.api.Query(ctx, expr, q.at)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", expr, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("query %s: want an instant vector, got %s", expr, v.Type())
	}
	out := vec[:0]
	for _, s := range vec {
		if f := float64(s.Value); !math.IsNaN(f) && !math.IsInf(f, 0) {
			out = append(out, s)
		}
	}
	return out, nil
}

// required runs expr and, when it returns nothing, tells apart a missing
// exporter (probe returns nothing either) from a namespace without the
// series.
func (q querier) required(ctx context.Context, what, expr, probe string, from exporter, namespace string) (model.Vector, error) {
	v, err := q.vector(ctx, expr)
	if err != nil || len(v) > 0 {
		return v, err
	}
	any, err := q.vector(ctx, probe)
	if err != nil {
		return nil, err
	}
	if len(any) == 0 {
		return nil, &missingError{what: what, query: probe, from: from}
	}
	return nil, fmt.Errorf("namespace %q has no %s at %s (query %s), though Prometheus has them for other namespaces", namespace, what, q.at.UTC().Format(time.RFC3339), expr)
}

// rangeOf runs a range query over [start, end] at step and returns its one
// series.
func (q querier) rangeOf(ctx context.Context, expr string, start, end time.Time, step time.Duration) (*model.SampleStream, error) {
	v, _, err := q.api.QueryRange(ctx, expr, promv1.Range{Start: start, End: end, Step: step})
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", expr, err)
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Errorf("query %s: want a range vector, got %s", expr, v.Type())
	}
	if len(m) != 1 {
		return nil, fmt.Errorf("query %s: want one series, got %d", expr, len(m))
	}
	return m[0], nil
}

// label reads a sample's label.
func label(s *model.Sample, name string) string { return string(s.Metric[model.LabelName(name)]) }

// quote escapes a label value for a PromQL matcher.
func quote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v) + `"`
}

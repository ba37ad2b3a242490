package scaler

import (
	"context"
	"fmt"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/internal/problem"
	"github.com/artt-dev/artt/scaler/metric"
)

// CheckOptions are the settings of the artt-scaler a check stands for.
type CheckOptions struct {
	Source            *PrometheusSource
	DefaultPrometheus string
	Tenancy           Tenancy
	Now               time.Time
}

// ScaledObject is what a check reads of a KEDA ScaledObject (package
// scaledobject reads it from the API).
type ScaledObject struct {
	Namespace, Name string
	Triggers        []Trigger
}

// Trigger is one of a ScaledObject's triggers: its type, and its metadata
// as the API holds it (a value that is not a string is a problem).
type Trigger struct {
	Type     string
	Metadata map[string]any
}

// CheckScaledObject checks each external trigger of a ScaledObject as
// artt-scaler would answer KEDA for it: its metadata, each of its queries
// (one series each, now), and one evaluation. It returns the problems, and
// a line for each trigger that evaluates.
func CheckScaledObject(ctx context.Context, so ScaledObject, o CheckOptions) (problems []problem.Problem, evaluated []string) {
	external := false
	for i, trigger := range so.Triggers {
		if trigger.Type != "external" && trigger.Type != "external-push" {
			continue
		}
		external = true
		object := fmt.Sprintf("scaledobject %s/%s trigger %d", so.Namespace, so.Name, i)
		spec, refused := checkMetadata(object, so, trigger, o)
		if len(refused) == 0 {
			refused = checkQueries(ctx, object, spec, o)
		}
		if problems = append(problems, refused...); len(refused) > 0 {
			continue
		}
		line, err := evaluateOnce(ctx, spec, o)
		if err != nil {
			problems = append(problems, problem.Problem{Object: object, Wrong: "it does not evaluate: " + err.Error(), Remedy: "see docs/scaler.md", Blocking: true})
			continue
		}
		evaluated = append(evaluated, object+": "+line)
	}
	if !external {
		problems = append(problems, problem.Problem{Object: fmt.Sprintf("scaledobject %s/%s", so.Namespace, so.Name),
			Wrong: "it has no external or external-push trigger, so KEDA never calls artt-scaler for it", Remedy: "add a trigger of type external with scalerAddress set to artt-scaler's service (deploy/examples/scaledobject.yaml)", Blocking: true})
	}
	return problems, evaluated
}

// checkMetadata parses a trigger's metadata as artt-scaler does, one
// problem per key it refuses.
func checkMetadata(object string, so ScaledObject, trigger Trigger, o CheckOptions) (Spec, []problem.Problem) {
	md := make(map[string]string, len(trigger.Metadata))
	var problems []problem.Problem
	for k, v := range trigger.Metadata {
		s, ok := v.(string)
		if !ok {
			problems = append(problems, problem.Problem{Object: object, Wrong: fmt.Sprintf("metadata %s = %v is not a string", k, v), Remedy: "quote it", Blocking: true})
		}
		md[k] = s
	}
	spec, err := ParseMetadata(so.Namespace, so.Name, md, o.DefaultPrometheus)
	if err == nil {
		err = o.Tenancy.admit(md, spec, o.DefaultPrometheus)
	}
	for _, e := range unjoin(err) {
		problems = append(problems, problem.Problem{Object: object, Wrong: e.Error(), Remedy: "fix the trigger's metadata (docs/scaler.md lists every key)", Blocking: true})
	}
	return spec, problems
}

// unjoin is the errors errors.Join joined, or err alone.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// checkedQuery is one query of a poll, with what to do when it finds
// nothing.
type checkedQuery struct {
	name          QueryName
	query, remedy string
}

// queriesOf are the queries a poll of spec runs.
func queriesOf(spec Spec) []checkedQuery {
	qs := []checkedQuery{
		{QueryCPUUsage, spec.CPUUsageQuery, "scrape cAdvisor's container_cpu_usage_seconds_total and kube-state-metrics' kube_pod_status_ready, with namespace and pod labels"},
		{QueryCPURequest, spec.CPURequestQuery, "scrape kube-state-metrics, and give the workload's containers CPU requests: without them there is no utilisation"},
		{QueryRequestRate, spec.RequestRateQuery, "scrape the sidecars' istio_requests_total (reporter=destination), or set workload to the name Istio reports for the pods"},
	}
	if spec.OfferedLoad {
		qs = append(qs, checkedQuery{QueryArrivalRate, spec.ArrivalRateQuery, "add http downstream_rq_total to the sidecars' proxyStatsMatcher (docs/install.md) and scrape it, or set offeredLoad: \"false\""})
	}
	if spec.Form == metric.FormPods {
		qs = append(qs, checkedQuery{QueryPodCPURequest, spec.PodCPURequestQuery, "scrape kube-state-metrics, and give the workload's containers CPU requests"})
	}
	if spec.UsesCalendar() {
		qs = append(qs, checkedQuery{QueryCalendar, spec.CalendarQuery, "scrape the series calendarQuery reads (by default arrivalRateQuery's) at least twice per calendarStep, whose rate() needs two samples, or set normalization to another than \"calendar\""})
	}
	return qs
}

// checkQueries runs each query of a poll once, now, and reports those that
// fail or do not return exactly one series. A rate that is zero is one
// series: a quiet workload is not a problem.
func checkQueries(ctx context.Context, object string, spec Spec, o CheckOptions) []problem.Problem {
	api, err := o.Source.client(spec.PrometheusAddress)
	if err != nil {
		return []problem.Problem{{Object: object, Wrong: "Prometheus at " + spec.PrometheusAddress + ": " + err.Error(), Remedy: "set prometheusAddress, or run artt-scaler with --prometheus-address", Blocking: true}}
	}
	var problems []problem.Problem
	for _, q := range queriesOf(spec) {
		key := queryKey[q.name]
		qctx, cancel := context.WithTimeout(ctx, spec.QueryTimeout)
		v, _, err := api.Query(qctx, q.query, o.Now, promv1.WithTimeout(spec.QueryTimeout))
		cancel()
		switch series := seriesIn(v); {
		case err != nil:
			problems = append(problems, problem.Problem{Object: object, Wrong: fmt.Sprintf("the %s query (%s) fails: %v", q.name, key, err), Remedy: "check that Prometheus at " + spec.PrometheusAddress + " answers it", Blocking: true})
		case series == 0:
			problems = append(problems, problem.Problem{Object: object, Wrong: fmt.Sprintf("the %s query (%s) returns nothing for workload %s in namespace %s", q.name, key, spec.Workload, spec.Namespace), Remedy: q.remedy, Blocking: true})
		case series > 1:
			problems = append(problems, problem.Problem{Object: object, Wrong: fmt.Sprintf("the %s query (%s) returns %d series", q.name, key, series), Remedy: "aggregate it with sum() to one series", Blocking: true})
		}
	}
	return problems
}

// seriesIn counts the series of an instant query's answer.
func seriesIn(v model.Value) int {
	switch v := v.(type) {
	case model.Vector:
		return len(v)
	case *model.Scalar:
		return 1
	}
	return 0
}

// evaluateOnce runs one poll and says what KEDA would be served.
func evaluateOnce(ctx context.Context, spec Spec, o CheckOptions) (string, error) {
	m, err := o.Source.Fetch(ctx, spec, o.Now)
	if err != nil {
		return "", err
	}
	ev, err := metric.Evaluate(spec.Settings, m)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("utilisation %.1f%% (offered %.1f%%) against a threshold of %.1f%%: KEDA is served %.2f for a target of %.2f (%s form); active %v",
		ev.Utilization, ev.OfferedUtilization, ev.Threshold.Threshold, ev.MetricValue(spec.Form), ev.MetricTarget(spec.Form), spec.Form, ev.Active), nil
}

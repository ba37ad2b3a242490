package scaler

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
	"text/template"
	"time"

	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/scaler/metric"
)

// Spec is a ScaledObject's parsed trigger metadata: where to measure its
// workload, and the metric's settings.
type Spec struct {
	// Namespace and Name identify the ScaledObject.
	Namespace, Name string
	// Workload is the Deployment (or StatefulSet) the queries select.
	Workload string
	// PrometheusAddress is the base URL of the Prometheus HTTP API.
	PrometheusAddress string
	// Queries are the rendered PromQL expressions.
	CPUUsageQuery, CPURequestQuery, RequestRateQuery, ArrivalRateQuery string
	// PodCPURequestQuery is one ready pod's CPU request, read in the pods
	// form only.
	PodCPURequestQuery string
	// CalendarQuery is the offered rate's history, averaged over each
	// calendar step, read by the normalization "calendar" only.
	CalendarQuery string
	// QueryTimeout bounds each Prometheus query.
	QueryTimeout time.Duration
	// Settings shape what is measured and how the metric is computed.
	metric.Settings
}

// Default queries. They are Go templates over .Namespace, .Workload,
// .PodRegex, .RateFunction and .RateWindow; docs/scaler.md documents them.
const (
	// The rate queries keep only series still scraped ("and" the series
	// itself): a range selector ignores staleness markers, so a deleted
	// pod's rate would otherwise be summed for a whole rate window beside
	// the pods that took over its load, and a scale-down would read as a
	// burst. cAdvisor stamps its samples itself, and Prometheus marks such
	// series stale only with track_timestamps_staleness (2.48 and later,
	// off by default): the CPU keeps the pods kube-state-metrics still
	// reports instead.
	DefaultCPUUsageQuery = `sum({{.RateFunction}}(container_cpu_usage_seconds_total{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}",container!="",container!="POD"}[{{.RateWindow}}]) and on(namespace, pod) kube_pod_status_ready{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}"})`
	// The ready pods' requests only: pods still starting use no CPU yet,
	// and counting their requests would lower the utilisation, and the
	// HPA's ceil(ready pods × metric ÷ target), just when it must rise.
	DefaultCPURequestQuery = `sum(kube_pod_container_resource_requests{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}",resource="cpu"} * on(namespace, pod) group_left() (kube_pod_status_ready{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}",condition="true"} == 1))`
	// One ready pod's CPU request, its containers summed, of the same pods
	// as DefaultCPURequestQuery.
	DefaultPodCPURequestQuery = `avg(sum by (namespace, pod) (kube_pod_container_resource_requests{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}",resource="cpu"} * on(namespace, pod) group_left() (kube_pod_status_ready{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}",condition="true"} == 1)))`
	DefaultRequestRateQuery   = `sum({{.RateFunction}}(istio_requests_total{reporter="destination",destination_workload="{{.Workload}}",destination_workload_namespace="{{.Namespace}}"}[{{.RateWindow}}]) and istio_requests_total{reporter="destination",destination_workload="{{.Workload}}",destination_workload_namespace="{{.Namespace}}"})`
	// The sidecars' inbound listeners count a request when its headers
	// arrive (Envoy's downstream_rq_total), before any queue.
	DefaultArrivalRateQuery = `sum({{.RateFunction}}(envoy_http_downstream_rq_total{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}",envoy_http_conn_manager_prefix=~"inbound_.*"}[{{.RateWindow}}]) and envoy_http_downstream_rq_total{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}",envoy_http_conn_manager_prefix=~"inbound_.*"})`
)

// dnsLabel is a Kubernetes object name as it may appear in a pod name.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// ParseMetadata turns a ScaledObject's trigger metadata into a Spec.
// defaultPrometheus is used when the metadata names no Prometheus. It
// reports every problem at once, each a *MetadataError naming the key and
// the value (joined with errors.Join, so errors.As finds the first):
// unknown keys first (those the parser did not read), then each key's
// value: a ScaledObject's author fixes them all in one edit instead of one
// per poll.
func ParseMetadata(namespace, name string, md map[string]string, defaultPrometheus string) (Spec, error) {
	r := metric.NewReader(md)
	s := spec(r, namespace, name, defaultPrometheus)
	if err := r.Err("unknown key; see docs/scaler.md for the keys artt-scaler reads", metric.KEDAKeys...); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// spec reads every key into a Spec, keeping the errors in r.
func spec(r *metric.Reader, namespace, name, defaultPrometheus string) Spec {
	if !dnsLabel.MatchString(namespace) {
		r.Refuse(&metric.MetadataError{Key: "namespace", Value: namespace, Reason: "not a valid Kubernetes namespace"})
	}
	s := Spec{
		Namespace:         namespace,
		Name:              name,
		Workload:          r.String("workload", name),
		PrometheusAddress: r.String("prometheusAddress", defaultPrometheus),
		QueryTimeout:      r.Duration("queryTimeout", 5*time.Second, 100*time.Millisecond, 2*time.Minute),
		Settings:          r.Settings(),
	}
	validWorkload := checkWhere(r, s)
	renderQueries(r, &s, validWorkload && s.RateWindow > 0 && dnsLabel.MatchString(namespace))
	return s
}

// checkWhere checks where s measures: the workload's name (reported
// whether it is valid) and Prometheus's address.
func checkWhere(r *metric.Reader, s Spec) (validWorkload bool) {
	validWorkload = dnsLabel.MatchString(s.Workload)
	if !validWorkload {
		r.Refuse(&metric.MetadataError{Key: "workload", Value: s.Workload, Reason: "must be a Kubernetes object name (lower-case letters, digits, '-', '.')"})
	}
	if s.PrometheusAddress == "" {
		r.Refuse(&metric.MetadataError{Key: "prometheusAddress", Reason: "required: set it in the trigger metadata or start artt-scaler with --prometheus-address"})
	} else if u, err := url.Parse(s.PrometheusAddress); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.Refuse(&metric.MetadataError{Key: "prometheusAddress", Value: s.PrometheusAddress, Reason: "must be an http:// or https:// URL with a host"})
	}
	return validWorkload
}

// promQLString escapes s for a double-quoted PromQL string, whose escapes
// are Go's: the backslashes regexp.QuoteMeta writes before a workload
// name's dots are doubled, or Prometheus refuses `\.` and every query of a
// Deployment named web.v2.
func promQLString(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

// renderQueries reads the query templates and, when safe (the namespace,
// the workload and the rate window they interpolate passed their checks),
// renders them into s.
func renderQueries(r *metric.Reader, s *Spec, safe bool) {
	vars := queryVars{
		Namespace:    s.Namespace,
		Workload:     s.Workload,
		PodRegex:     promQLString(regexp.QuoteMeta(s.Workload)) + `-[a-z0-9]+-[a-z0-9]+`,
		RateWindow:   r.String("rateWindow", metric.DefaultRateWindow), // as written, validated by r.Settings
		RateFunction: s.RateFunction,
	}
	for _, q := range []struct {
		key, def string
		dst      *string
		used     bool
	}{
		{"cpuUsageQuery", DefaultCPUUsageQuery, &s.CPUUsageQuery, true},
		{"cpuRequestQuery", DefaultCPURequestQuery, &s.CPURequestQuery, true},
		{"requestRateQuery", DefaultRequestRateQuery, &s.RequestRateQuery, true},
		{"arrivalRateQuery", DefaultArrivalRateQuery, &s.ArrivalRateQuery, true},
		// Read in the pods form only: rendering it for every poll of the
		// other forms cost a tenth more allocations per poll.
		{"podCPURequestQuery", DefaultPodCPURequestQuery, &s.PodCPURequestQuery, s.Form == metric.FormPods},
	} {
		tmpl := r.String(q.key, q.def)
		if !safe || !q.used {
			continue
		}
		text, err := render(q.key, tmpl, vars)
		if err != nil {
			r.Refuse(err)
			continue
		}
		*q.dst = text
	}
	renderCalendarQuery(r, s, vars, safe)
}

// renderCalendarQuery renders calendarQuery, by default the offered rate's
// query (arrivals, or requests served without offeredLoad) as a rate()
// over each calendar step: the mean between the history's samples, where
// an irate would read two scrapes of each minute. Read by the
// normalization "calendar" only.
func renderCalendarQuery(r *metric.Reader, s *Spec, vars queryVars, safe bool) {
	def := r.String("arrivalRateQuery", DefaultArrivalRateQuery)
	if !s.OfferedLoad {
		def = r.String("requestRateQuery", DefaultRequestRateQuery)
	}
	tmpl := r.String("calendarQuery", def)
	if !safe || !s.UsesCalendar() || s.Calendar.Step <= 0 {
		return
	}
	vars.RateFunction, vars.RateWindow = "rate", model.Duration(s.Calendar.Step).String()
	text, err := render("calendarQuery", tmpl, vars)
	if err != nil {
		r.Refuse(err)
		return
	}
	s.CalendarQuery = text
}

// queryVars are the names a query template can use.
type queryVars struct {
	Namespace, Workload, PodRegex, RateWindow, RateFunction string
}

func render(key, text string, vars queryVars) (string, error) {
	tmpl, err := template.New(key).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", &metric.MetadataError{Key: key, Value: text, Reason: "not a valid template: " + err.Error()}
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, vars); err != nil {
		return "", &metric.MetadataError{Key: key, Value: text, Reason: "template failed: " + err.Error()}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", &metric.MetadataError{Key: key, Value: text, Reason: "renders to an empty query"}
	}
	return b.String(), nil
}

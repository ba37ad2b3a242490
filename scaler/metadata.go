package scaler

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/threshold"
)

// MetricForm says how the threshold reaches the HPA.
type MetricForm string

const (
	// FormNormalized reports 100·utilisation/threshold against a fixed
	// target of 100. It works on KEDA's pull path, where the HPA's target is
	// fixed when KEDA creates the HPA.
	FormNormalized MetricForm = "normalized"
	// FormUtilization reports raw utilisation (percent) against a target
	// equal to the current threshold, pushed through StreamMetricSpec. It
	// needs an `external-push` trigger.
	FormUtilization MetricForm = "utilization"
	// FormPods reports the arriving requests' CPU in pods' worth at the
	// threshold (the CPU they need ÷ θ of one pod's CPU request) against a
	// fixed target of 1, for metricType AverageValue: the HPA's count is
	// ceil(value), whatever it counts as ready.
	FormPods MetricForm = "pods"
)

// Spec is a ScaledObject's parsed trigger metadata: everything needed to
// measure its workload and compute its threshold.
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
	// OfferedLoad scales on the arriving requests' CPU (arrivals × the
	// measured CPU per request) rather than on the CPU used alone, which
	// stops growing at the pods' limit; it needs ArrivalRateQuery.
	OfferedLoad bool
	// RateFunction is the queries' rate function: irate (the default: the
	// rate between the last two scrapes within RateWindow) or rate (the
	// average over RateWindow).
	RateFunction string
	// RateWindow is the queries' range: how far back irate looks for two
	// scrapes, or what rate averages over.
	RateWindow time.Duration
	// LeadTime is how far ahead the threshold keeps headroom for a climb
	// (threshold.Config.Lead × Step).
	LeadTime time.Duration
	// Window is the trend window in samples; History the number of earlier
	// windows replayed for the normalisation bounds; Step the sample spacing.
	Window, History int
	Step            time.Duration
	// QueryTimeout bounds each Prometheus query.
	QueryTimeout time.Duration
	// ActivationRequestRate: the workload is active above this request rate.
	ActivationRequestRate float64
	// Form selects the metric form.
	Form MetricForm
	// Threshold configures the core.
	Threshold threshold.Config
}

// Points is the number of samples each range query returns.
func (s Spec) Points() int { return s.Window + s.History - 1 }

// MetadataError is bad trigger metadata: it names the key and the value.
type MetadataError struct {
	Key, Value, Reason string
}

func (e *MetadataError) Error() string {
	return fmt.Sprintf("metadata %q = %q: %s", e.Key, e.Value, e.Reason)
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

// Limits that keep one ScaledObject's memory and query cost bounded.
const (
	maxWindow = 2400
	// Prometheus refuses range queries of more than 11,000 points.
	maxPoints = 11000
)

// keysKEDAOwns are trigger metadata keys KEDA reads itself and passes along.
var keysKEDAOwns = []string{"scalerAddress", "enableTLS", "unsafeSsl"}

// configFieldKeys maps threshold.Config fields to the metadata keys that set them.
var configFieldKeys = map[string]string{
	"Mode": "mode", "Normalization": "normalization", "MinThreshold": "minThreshold", "MaxThreshold": "maxThreshold",
	"StaticThreshold": "staticThreshold", "Quantile": "quantile", "Deadband": "deadband", "WarmUp": "warmUp",
	"RANSAC.MADMultiplier": "madMultiplier", "RANSAC.MaxIterations": "ransacIterations", "Lead": "leadTime",
}

// dnsLabel is a Kubernetes object name as it may appear in a pod name.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// promDuration is a PromQL duration such as 30s, 1m or 1m30s.
var promDuration = regexp.MustCompile(`^([0-9]+(ms|s|m|h|d|w|y))+$`)

// ParseMetadata turns a ScaledObject's trigger metadata into a Spec.
// defaultPrometheus is used when the metadata names no Prometheus. It
// reports every problem at once, each a *MetadataError naming the key and
// the value (joined with errors.Join, so errors.As finds the first):
// unknown keys first (those the parser did not read), then each key's
// value: a ScaledObject's author fixes them all in one edit instead of one
// per poll.
func ParseMetadata(namespace, name string, md map[string]string, defaultPrometheus string) (Spec, error) {
	p := &parser{md: md, read: map[string]bool{}}
	s := p.spec(namespace, name, defaultPrometheus)
	if errs := append(p.unread(), p.errs...); len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}
	return s, nil
}

// spec reads every key into a Spec, keeping the errors in p.
func (p *parser) spec(namespace, name, defaultPrometheus string) Spec {
	if !dnsLabel.MatchString(namespace) {
		p.errs = append(p.errs, &MetadataError{"namespace", namespace, "not a valid Kubernetes namespace"})
	}
	s := Spec{
		Namespace:         namespace,
		Name:              name,
		Workload:          p.str("workload", name),
		PrometheusAddress: p.str("prometheusAddress", defaultPrometheus),
		// A window shorter than the fit's minimum would never move the threshold.
		Window:                p.integer("window", 40, threshold.DefaultConfig().RANSAC.MinSamples, maxWindow),
		History:               p.integer("history", 240, 1, maxPoints),
		Step:                  p.duration("step", 15*time.Second, time.Second, time.Hour),
		QueryTimeout:          p.duration("queryTimeout", 5*time.Second, 100*time.Millisecond, 2*time.Minute),
		ActivationRequestRate: p.float("activationRequestRate", 0),
		Form:                  MetricForm(p.str("metricForm", string(FormNormalized))),
		OfferedLoad:           p.boolean("offeredLoad", true),
		LeadTime:              p.duration("leadTime", 30*time.Second, 0, 24*time.Hour),
	}
	cfg := p.thresholdConfig()
	rateWindow, validWindow := p.rate(&s)
	cfg.Lead = float64(s.LeadTime) / float64(s.Step)
	s.Threshold = cfg
	p.checkThreshold(cfg)
	validWorkload := p.checkSpec(s)
	p.renderQueries(&s, rateWindow, validWorkload && validWindow && dnsLabel.MatchString(namespace))
	return s
}

// unread refuses, in order, the keys neither the parser nor KEDA read.
func (p *parser) unread() []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(p.md)) {
		if !p.read[k] && !slices.Contains(keysKEDAOwns, k) {
			errs = append(errs, &MetadataError{k, p.md[k], "unknown key; see docs/scaler.md for the keys artt-scaler reads"})
		}
	}
	return errs
}

// checkSpec checks the values read into s that no single key's parser can:
// the workload's name (reported whether it is valid), Prometheus's
// address, the points a range query needs, the metric form and the
// activation rate.
func (p *parser) checkSpec(s Spec) (validWorkload bool) {
	validWorkload = dnsLabel.MatchString(s.Workload)
	if !validWorkload {
		p.errs = append(p.errs, &MetadataError{"workload", s.Workload, "must be a Kubernetes object name (lower-case letters, digits, '-', '.')"})
	}
	if s.PrometheusAddress == "" {
		p.errs = append(p.errs, &MetadataError{"prometheusAddress", "", "required: set it in the trigger metadata or start artt-scaler with --prometheus-address"})
	} else if u, err := url.Parse(s.PrometheusAddress); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.errs = append(p.errs, &MetadataError{"prometheusAddress", s.PrometheusAddress, "must be an http:// or https:// URL with a host"})
	}
	if s.Points() > maxPoints {
		p.errs = append(p.errs, &MetadataError{"history", p.md["history"], fmt.Sprintf("window + history − 1 = %d exceeds the %d points Prometheus returns per range query", s.Points(), maxPoints)})
	}
	if s.Form != FormNormalized && s.Form != FormUtilization && s.Form != FormPods {
		p.errs = append(p.errs, &MetadataError{"metricForm", string(s.Form), `must be "normalized", "utilization" or "pods"`})
	}
	if math.IsNaN(s.ActivationRequestRate) || math.IsInf(s.ActivationRequestRate, 0) || s.ActivationRequestRate < 0 {
		p.errs = append(p.errs, &MetadataError{"activationRequestRate", p.md["activationRequestRate"], "must be a finite number ≥ 0"})
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
func (p *parser) renderQueries(s *Spec, rateWindow string, safe bool) {
	vars := queryVars{
		Namespace:    s.Namespace,
		Workload:     s.Workload,
		PodRegex:     promQLString(regexp.QuoteMeta(s.Workload)) + `-[a-z0-9]+-[a-z0-9]+`,
		RateWindow:   rateWindow,
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
		{"podCPURequestQuery", DefaultPodCPURequestQuery, &s.PodCPURequestQuery, s.Form == FormPods},
	} {
		tmpl := p.str(q.key, q.def)
		if !safe || !q.used {
			continue
		}
		text, err := render(q.key, tmpl, vars)
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		*q.dst = text
	}
}

// thresholdConfig reads the threshold's keys over its defaults.
func (p *parser) thresholdConfig() threshold.Config {
	cfg := threshold.DefaultConfig()
	cfg.Mode = threshold.Mode(p.str("mode", string(cfg.Mode)))
	cfg.Normalization = threshold.Normalization(p.str("normalization", string(cfg.Normalization)))
	cfg.MinThreshold = p.float("minThreshold", cfg.MinThreshold)
	cfg.MaxThreshold = p.float("maxThreshold", cfg.MaxThreshold)
	cfg.StaticThreshold = p.float("staticThreshold", cfg.StaticThreshold)
	cfg.Quantile = p.float("quantile", cfg.Quantile)
	cfg.Deadband = p.float("deadband", cfg.Deadband)
	cfg.WarmUp = p.integer("warmUp", cfg.WarmUp, 2, maxPoints)
	cfg.RANSAC.MADMultiplier = p.float("madMultiplier", cfg.RANSAC.MADMultiplier)
	cfg.RANSAC.MaxIterations = p.integer("ransacIterations", cfg.RANSAC.MaxIterations, 1, 100000)
	cfg.RANSAC.Seed = uint64(p.integer("seed", int(cfg.RANSAC.Seed), 0, math.MaxInt32))
	return cfg
}

// checkThreshold reports the threshold's first invalid field under the
// metadata key that sets it.
func (p *parser) checkThreshold(cfg threshold.Config) {
	err := cfg.Validate()
	if err == nil {
		return
	}
	var fe *threshold.FieldError
	if errors.As(err, &fe) {
		key := configFieldKeys[fe.Field]
		p.errs = append(p.errs, &MetadataError{key, p.md[key], fe.Reason})
		return
	}
	p.errs = append(p.errs, err)
}

// rate reads rateFunction and rateWindow into s; it returns the window as
// written (for the query templates) and whether it is valid.
func (p *parser) rate(s *Spec) (string, bool) {
	s.RateFunction = p.str("rateFunction", "irate")
	if s.RateFunction != "irate" && s.RateFunction != "rate" {
		p.fail("rateFunction", `must be "irate" or "rate"`)
	}
	window := p.str("rateWindow", "1m")
	d, err := model.ParseDuration(window)
	if !promDuration.MatchString(window) || err != nil || d <= 0 {
		p.errs = append(p.errs, &MetadataError{"rateWindow", window, "must be a PromQL duration above 0 such as 1m or 30s"})
		return window, false
	}
	s.RateWindow = time.Duration(d)
	return window, true
}

// queryVars are the names a query template can use.
type queryVars struct {
	Namespace, Workload, PodRegex, RateWindow, RateFunction string
}

func render(key, text string, vars queryVars) (string, error) {
	tmpl, err := template.New(key).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", &MetadataError{key, text, "not a valid template: " + err.Error()}
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, vars); err != nil {
		return "", &MetadataError{key, text, "template failed: " + err.Error()}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", &MetadataError{key, text, "renders to an empty query"}
	}
	return b.String(), nil
}

// parser reads typed values, keeps every error and remembers the keys it
// read.
type parser struct {
	md   map[string]string
	read map[string]bool
	errs []error
}

// value is the key's trimmed value, "" when it is absent or blank.
func (p *parser) value(key string) string {
	p.read[key] = true
	return strings.TrimSpace(p.md[key])
}

func (p *parser) fail(key, reason string) {
	p.errs = append(p.errs, &MetadataError{key, p.md[key], reason})
}

func (p *parser) str(key, def string) string {
	if v := p.value(key); v != "" {
		return v
	}
	return def
}

func (p *parser) float(key string, def float64) float64 {
	v := p.value(key)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		p.fail(key, "not a number")
		return def
	}
	return f
}

func (p *parser) boolean(key string, def bool) bool {
	v := p.value(key)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(key, "must be true or false")
		return def
	}
	return b
}

func (p *parser) integer(key string, def, lo, hi int) int {
	v := p.value(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		p.fail(key, "not an integer")
		return def
	}
	if n < lo || n > hi {
		p.fail(key, fmt.Sprintf("must be in [%d, %d]", lo, hi))
		return def
	}
	return n
}

func (p *parser) duration(key string, def, lo, hi time.Duration) time.Duration {
	v := p.value(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		p.fail(key, "not a duration such as 15s or 1m")
		return def
	}
	if d < lo || d > hi {
		p.fail(key, fmt.Sprintf("must be in [%s, %s]", lo, hi))
		return def
	}
	return d
}

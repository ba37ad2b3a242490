// Package importer builds an artt-lab scenario from a live cluster's
// Prometheus, so that a team can see what ARTT would do on its own cluster
// before installing it. It reads what artt-traffic's collector reads
// (cAdvisor's CPU, Istio's request counters and call graph, the node probes'
// delays) and what kube-state-metrics knows (nodes, pods and their
// placement, CPU requests and limits, HPAs), fits each node's speed from
// what the same component costs per request on different nodes, and writes
// the scenario with the entry's request rate as a trace beside it. Every
// value estimated rather than read carries a comment saying how.
package importer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/internal/stats"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// DefaultMaxResponseBytes bounds one answer from Prometheus. The importer's
// largest answers are a vector with a sample per pod or node pair (a few
// hundred bytes each) and a range of one series (a point per step): 32 MiB
// holds either for thousands of pods or a year of steps.
const DefaultMaxResponseBytes = 32 << 20

// Options say what to import.
type Options struct {
	// Namespace holds the application.
	Namespace string
	// Since is how far back the import looks (default 24h); Until is the
	// end of that period (default now).
	Since time.Duration
	Until time.Time
	// Step is one trace row (default Since ÷ 1440, at least 15 s).
	Step time.Duration
	// DefaultDelayMs is the one-way node-to-node delay used when no node
	// probes exist; negative requires the probes.
	DefaultDelayMs float64
	// Name is the scenario's name (default: the namespace).
	Name string
	// TraceFile is the trace's file name, written beside the scenario
	// (default <name>-workload.csv).
	TraceFile string
	// Source names the Prometheus in the scenario's description.
	Source string
}

// Result is the imported scenario and its trace.
type Result struct {
	// Scenario is the scenario file, YAML with comments.
	Scenario []byte
	// Trace is the entry's request rate, a CSV of time and rate.
	Trace []byte
	// Estimated lists, one line each, the values estimated rather than read.
	Estimated []string
}

// minStep is the shortest trace row: a rate over less than a few scrapes is
// mostly noise.
const minStep = 15 * time.Second

// fill completes the options with their defaults and checks them.
func (o Options) fill(now time.Time) (Options, error) {
	var errs []error
	if o.Namespace == "" {
		errs = append(errs, errors.New("--namespace is required"))
	}
	if o.Since == 0 {
		o.Since = 24 * time.Hour
	}
	if o.Until.IsZero() {
		o.Until = now
	}
	if o.Step == 0 {
		o.Step = max(minStep, (o.Since / 1440).Round(time.Second))
	}
	if o.Step < minStep {
		errs = append(errs, fmt.Errorf("--step = %s: must be at least %s", o.Step, minStep))
	}
	if o.Since < 10*o.Step {
		errs = append(errs, fmt.Errorf("--since = %s: must cover at least 10 steps of %s", o.Since, o.Step))
	}
	if math.IsNaN(o.DefaultDelayMs) || math.IsInf(o.DefaultDelayMs, 0) {
		errs = append(errs, fmt.Errorf("--default-delay = %v: want a duration", o.DefaultDelayMs))
	}
	if o.Name == "" {
		o.Name = o.Namespace
	}
	if o.TraceFile == "" {
		o.TraceFile = o.Name + "-workload.csv"
	}
	return o, errors.Join(errs...)
}

// pod is one pod of the namespace.
type pod struct {
	name, node, workload string
	cpuRequest, cpuLimit float64 // cores; NaN when unset
}

// component is one workload of the imported application.
type component struct {
	name                 string
	pods                 []pod // now, sorted by name
	cpuPerRequest        float64
	spread               float64
	cpuRequest, cpuLimit float64 // NaN when unset
	calls                []call
	hpa                  *hpa
	served               float64 // requests per second over the period
}

type call struct {
	to      string
	perCall float64 // calls of to per request of the caller
}

type hpa struct {
	name           string
	min, max       int
	cpuTarget      float64 // percent; 0 when not a CPU utilisation target
	keda           bool
	scaledObjectOf string
}

// Import reads the cluster from Prometheus and writes the scenario.
func Import(ctx context.Context, api promv1.API, o Options) (*Result, error) {
	o, err := o.fill(time.Now())
	if err != nil {
		return nil, err
	}
	q := querier{api: api, at: o.Until, window: fmt.Sprintf("%ds", int(o.Since.Seconds()))}
	ns := quote(o.Namespace)
	est := &estimates{}

	podsNow, podsEver, err := readPods(ctx, q, ns, o)
	if err != nil {
		return nil, err
	}
	cpu, served, calls, err := readUsage(ctx, q, ns, o)
	if err != nil {
		return nil, err
	}
	comps, samples := measureComponents(podsNow, podsEver, cpu, served, est)
	if len(comps) == 0 {
		return nil, fmt.Errorf("namespace %q: no Deployment's pods served requests over the %s up to %s (istio_requests_total with reporter=\"destination\" and a pod label)", o.Namespace, o.Since, o.Until.UTC().Format(time.RFC3339))
	}
	fit := fitSpeeds(samples)
	for _, c := range comps {
		c.cpuPerRequest, c.spread = fit.cpuPerRequest[c.name], fit.spread[c.name]
	}
	entry, external, err := callGraph(comps, calls, o.Namespace, est)
	if err != nil {
		return nil, err
	}
	if err := readHPAs(ctx, q, ns, comps, est); err != nil {
		return nil, err
	}

	nodes, err := readNodes(ctx, q, comps, fit, est)
	if err != nil {
		return nil, err
	}
	ingress, err := readIngress(ctx, q, external, comps[entry], nodes, est)
	if err != nil {
		return nil, err
	}
	delays, err := readDelays(ctx, q, nodes, o.DefaultDelayMs, est)
	if err != nil {
		return nil, err
	}
	routing, err := currentRouting(ctx, q, o.Namespace, est)
	if err != nil {
		return nil, err
	}
	trace, err := readTrace(ctx, q, o, entry, est)
	if err != nil {
		return nil, err
	}
	s := &scenarioText{o: o, comps: comps, entry: entry, nodes: nodes, ingress: ingress, delays: delays, routing: routing, trace: trace, est: est}
	text := s.render()
	// What was written must be a scenario artt-lab runs; a measured call
	// graph with a cycle, for one, is not.
	if _, err := scenario.Parse(text); err != nil {
		return nil, fmt.Errorf("the imported scenario does not validate: %w", err)
	}
	return &Result{Scenario: text, Trace: trace.csv(), Estimated: est.lines}, nil
}

// readPods reads the namespace's pods now, with their CPU requests and
// limits, and every pod of the period (for the ones replaced since), each
// with its workload (a Deployment through its ReplicaSet, or a
// StatefulSet) and node.
func readPods(ctx context.Context, q querier, ns string, o Options) (podsNow map[string]*pod, podsEver map[string]pod, err error) {
	now, err := q.required(ctx, "pods", `kube_pod_info{namespace=`+ns+`}`, `count(kube_pod_info)`, kubeStateMetrics, o.Namespace)
	if err != nil {
		return nil, nil, err
	}
	period, err := q.vector(ctx, `max by (pod, node, created_by_kind, created_by_name) (max_over_time(kube_pod_info{namespace=`+ns+`}[`+q.window+`]))`)
	if err != nil {
		return nil, nil, err
	}
	owners, err := q.vector(ctx, `max by (replicaset, owner_name) (max_over_time(kube_replicaset_owner{namespace=`+ns+`,owner_kind="Deployment"}[`+q.window+`]))`)
	if err != nil {
		return nil, nil, err
	}
	deploymentOf := map[string]string{}
	for _, s := range owners {
		deploymentOf[label(s, "replicaset")] = label(s, "owner_name")
	}
	workloadOf := func(s *model.Sample) string {
		switch label(s, "created_by_kind") {
		case "ReplicaSet":
			return deploymentOf[label(s, "created_by_name")]
		case "StatefulSet":
			return label(s, "created_by_name")
		}
		return ""
	}
	podsNow = map[string]*pod{}
	for _, s := range now {
		if w := workloadOf(s); w != "" && label(s, "node") != "" {
			podsNow[label(s, "pod")] = &pod{name: label(s, "pod"), node: label(s, "node"), workload: w, cpuRequest: math.NaN(), cpuLimit: math.NaN()}
		}
	}
	if len(podsNow) == 0 {
		return nil, nil, fmt.Errorf("namespace %q has no pods of a Deployment or StatefulSet on a node at %s (kube_pod_info, kube_replicaset_owner)", o.Namespace, o.Until.UTC().Format(time.RFC3339))
	}
	podsEver = map[string]pod{}
	for _, s := range period {
		if w := workloadOf(s); w != "" && label(s, "node") != "" {
			podsEver[label(s, "pod")] = pod{name: label(s, "pod"), node: label(s, "node"), workload: w}
		}
	}
	for n, p := range podsNow {
		podsEver[n] = *p
	}
	for _, r := range []struct {
		metric string
		set    func(*pod, float64)
	}{
		{"kube_pod_container_resource_requests", func(p *pod, v float64) { p.cpuRequest = v }},
		{"kube_pod_container_resource_limits", func(p *pod, v float64) { p.cpuLimit = v }},
	} {
		v, err := q.vector(ctx, `sum by (pod) (`+r.metric+`{namespace=`+ns+`,resource="cpu"})`)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range v {
			if p := podsNow[label(s, "pod")]; p != nil {
				r.set(p, float64(s.Value))
			}
		}
	}
	return podsNow, podsEver, nil
}

// readUsage reads what each pod used and served over the period, and the
// calls between workloads.
func readUsage(ctx context.Context, q querier, ns string, o Options) (cpu, served, calls model.Vector, err error) {
	cpu, err = q.required(ctx, "CPU usage", `sum by (pod) (rate(container_cpu_usage_seconds_total{namespace=`+ns+`,container!="",container!="POD"}[`+q.window+`]))`,
		`count(container_cpu_usage_seconds_total)`, cadvisor, o.Namespace)
	if err != nil {
		return nil, nil, nil, err
	}
	served, err = q.required(ctx, "Istio request counters", `sum by (pod) (rate(istio_requests_total{reporter="destination",namespace=`+ns+`}[`+q.window+`]))`,
		`count(istio_requests_total)`, istioTelemetry, o.Namespace)
	if err != nil {
		return nil, nil, nil, err
	}
	calls, err = q.required(ctx, "Istio call graph", `sum by (source_workload_namespace, source_workload, destination_workload) (rate(istio_requests_total{reporter="source",destination_workload_namespace=`+ns+`}[`+q.window+`]))`,
		`count(istio_requests_total{reporter="source"})`, istioTelemetry, o.Namespace)
	if err != nil {
		return nil, nil, nil, err
	}
	return cpu, served, calls, nil
}

// estimates collects what was estimated rather than read, for the
// summary the command prints.
type estimates struct{ lines []string }

// add records "subject: what" and returns what, for the file's comment.
func (e *estimates) add(subject, format string, args ...any) string {
	what := fmt.Sprintf(format, args...)
	e.lines = append(e.lines, subject+": "+what)
	return what
}

// measureComponents groups the pods by workload and gathers, per
// component and node, the CPU seconds per request the pods of the whole
// period cost. Components whose pods served nothing are left out (noted).
func measureComponents(now map[string]*pod, ever map[string]pod, cpu, served model.Vector, est *estimates) (map[string]*component, []costSample) {
	cpuOf := map[string]float64{}
	for _, s := range cpu {
		cpuOf[label(s, "pod")] = float64(s.Value)
	}
	servedOf := map[string]float64{}
	for _, s := range served {
		servedOf[label(s, "pod")] = float64(s.Value)
	}
	type key struct{ component, node string }
	usedCPU, usedReq := map[key]float64{}, map[key]float64{}
	total := map[string]float64{}
	for name, p := range ever {
		r, c := servedOf[name], cpuOf[name]
		total[p.workload] += r
		if r > 0 && c > 0 {
			usedCPU[key{p.workload, p.node}] += c
			usedReq[key{p.workload, p.node}] += r
		}
	}
	comps := map[string]*component{}
	for _, p := range now {
		c := comps[p.workload]
		if c == nil {
			c = &component{name: p.workload}
			comps[p.workload] = c
		}
		c.pods = append(c.pods, *p)
	}
	for name, c := range comps {
		if total[name] <= 0 {
			est.add(name, "left out, its pods served no request over the period")
			delete(comps, name)
			continue
		}
		c.served = total[name]
		sort.Slice(c.pods, func(i, j int) bool { return c.pods[i].name < c.pods[j].name })
		c.cpuRequest, c.cpuLimit = medianOf(c.pods, func(p pod) float64 { return p.cpuRequest }), medianOf(c.pods, func(p pod) float64 { return p.cpuLimit })
	}
	var samples []costSample
	for k, cpuSum := range usedCPU {
		if comps[k.component] != nil {
			samples = append(samples, costSample{component: k.component, node: k.node, cost: cpuSum / usedReq[k], requests: usedReq[k]})
		}
	}
	slices.SortFunc(samples, func(a, b costSample) int {
		return strings.Compare(a.component+"/"+a.node, b.component+"/"+b.node)
	})
	for name := range comps {
		found := false
		for _, s := range samples {
			found = found || s.component == name
		}
		if !found {
			est.add(name, "left out, its CPU usage is not in cAdvisor's series")
			delete(comps, name)
		}
	}
	return comps, samples
}

// medianOf is the median of the pods' finite values, NaN when none.
func medianOf(pods []pod, value func(pod) float64) float64 {
	var v []float64
	for _, p := range pods {
		if x := value(p); !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	return stats.MedianInPlace(v)
}

// callGraph sets each component's calls from the source-side counters and
// finds the entry: the component called most from outside the namespace.
// It returns the entry and its external callers (namespace/workload).
func callGraph(comps map[string]*component, calls model.Vector, namespace string, est *estimates) (string, []string, error) {
	fromOutside := map[string]float64{}
	var external []string
	for _, s := range calls {
		src, srcNS, dst := label(s, "source_workload"), label(s, "source_workload_namespace"), label(s, "destination_workload")
		rate := float64(s.Value)
		if comps[dst] == nil || rate <= 0 {
			continue
		}
		if srcNS == namespace && comps[src] != nil {
			if src != dst {
				comps[src].calls = append(comps[src].calls, call{to: dst, perCall: rate / comps[src].served})
			}
			continue
		}
		fromOutside[dst] += rate
		external = append(external, srcNS+"/"+src)
	}
	if len(fromOutside) == 0 {
		return "", nil, fmt.Errorf("namespace %q: no calls from outside it in istio_requests_total{reporter=\"source\"}, so no entry component; is the ingress gateway's telemetry scraped?", namespace)
	}
	entries := make([]string, 0, len(fromOutside))
	for c := range fromOutside {
		entries = append(entries, c)
	}
	slices.SortFunc(entries, func(a, b string) int {
		if fromOutside[a] != fromOutside[b] {
			if fromOutside[a] > fromOutside[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(entries) > 1 {
		est.add("entry", "%s, the component called most from outside; %s also receive external calls, which the lab's single entry leaves out", entries[0], strings.Join(entries[1:], ", "))
	}
	for _, c := range comps {
		slices.SortFunc(c.calls, func(a, b call) int { return strings.Compare(a.to, b.to) })
	}
	slices.Sort(external)
	return entries[0], slices.Compact(external), nil
}

// readHPAs marks the autoscaled components and their bounds.
func readHPAs(ctx context.Context, q querier, ns string, comps map[string]*component, est *estimates) error {
	infos, err := q.vector(ctx, `kube_horizontalpodautoscaler_info{namespace=`+ns+`,scaletargetref_kind="Deployment"}`)
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		return nil
	}
	values := map[string]map[string]float64{}
	for _, m := range []string{"kube_horizontalpodautoscaler_spec_min_replicas", "kube_horizontalpodautoscaler_spec_max_replicas"} {
		v, err := q.vector(ctx, m+`{namespace=`+ns+`}`)
		if err != nil {
			return err
		}
		values[m] = map[string]float64{}
		for _, s := range v {
			values[m][label(s, "horizontalpodautoscaler")] = float64(s.Value)
		}
	}
	targets, err := q.vector(ctx, `kube_horizontalpodautoscaler_spec_target_metric{namespace=`+ns+`,metric_name="cpu",metric_target_type="utilization"}`)
	if err != nil {
		return err
	}
	target := map[string]float64{}
	for _, s := range targets {
		target[label(s, "horizontalpodautoscaler")] = float64(s.Value)
	}
	for _, s := range infos {
		name, c := label(s, "horizontalpodautoscaler"), comps[label(s, "scaletargetref_name")]
		if c == nil {
			continue
		}
		h := &hpa{name: name, min: int(values["kube_horizontalpodautoscaler_spec_min_replicas"][name]), max: int(values["kube_horizontalpodautoscaler_spec_max_replicas"][name]), cpuTarget: target[name]}
		if so, ok := strings.CutPrefix(name, "keda-hpa-"); ok {
			h.keda, h.scaledObjectOf = true, so
		}
		if h.min < 1 {
			h.min = 1
		}
		if h.max < h.min {
			est.add(c.name, "HPA %s has no readable maxReplicas; the current %d replicas are its maximum", name, len(c.pods))
			h.max = max(h.min, len(c.pods))
		}
		c.hpa = h
	}
	return nil
}

package controller

import "github.com/prometheus/client_golang/prometheus"

// telemetry is artt-traffic's /metrics. Label sets are bounded by the
// managed components and the nodes; stale share series are dropped each
// cycle.
type telemetry struct {
	share  *prometheus.GaugeVec
	health *prometheus.GaugeVec
	envoy  *prometheus.GaugeVec
	writes *prometheus.CounterVec
	// topologyWrites counts the topology ConfigMap's writes by result.
	topologyWrites *prometheus.CounterVec
	collectErrs    prometheus.Counter
	allocErrs      prometheus.Counter
	// componentErrs counts, per component, the allocations that could not
	// route it (the others were routed).
	componentErrs *prometheus.CounterVec
	cycle         *prometheus.HistogramVec
	phase         *prometheus.HistogramVec
	reaction      prometheus.Histogram
	lastCollect   prometheus.Gauge
	promUp        prometheus.Gauge
	protections   prometheus.Counter
	// tracked counts the components, groups and replicas the policy keeps
	// state for; resumed the components a new leader took over.
	tracked *prometheus.GaugeVec
	resumed *prometheus.GaugeVec
	// signalMissing counts, per optional signal, the pods that should
	// have it and were measured without it.
	signalMissing *prometheus.GaugeVec
}

func newTelemetry(reg prometheus.Registerer) *telemetry {
	t := &telemetry{
		share: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "group_share",
			Help: "Target share of a component's traffic for the pods on a node.",
		}, []string{"component", "node"}),
		health: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "group_health",
			Help: "1 for the health state (Healthy, Degraded, Unhealthy) of a component's pods on a node, as the artt policy judges it.",
		}, []string{"component", "node", "state"}),
		envoy: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "left_to_envoy",
			Help: "1 when a component is left to its callers' own balancing, locality weights off (its table would save less network time than it adds in queueing against the rule's loadBalancer.simple), 0 when ARTT writes its locality weights.",
		}, []string{"component"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "artt_traffic", Name: "destinationrule_writes_total",
			Help: "DestinationRule writes by result (written, unchanged, conflict, failed, dry-run).",
		}, []string{"result"}),
		topologyWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "artt_traffic", Name: "topology_writes_total",
			Help: "Writes of the topology ConfigMap artt-scheduler reads, by result (written, failed); unchanged content is not rewritten.",
		}, []string{"result"}),
		collectErrs: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "artt_traffic", Name: "collect_errors_total",
			Help: "Cycles whose Prometheus queries failed; the last routing was kept.",
		}),
		allocErrs: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "artt_traffic", Name: "allocation_errors_total",
			Help: "Allocations the policy refused; the last routing was kept.",
		}),
		componentErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "artt_traffic", Name: "component_allocation_errors_total",
			Help: "Allocations that could not route a component; its last routing was kept and the other components were routed.",
		}, []string{"component"}),
		cycle: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "artt_traffic", Name: "cycle_duration_seconds",
			Help:    "Duration of a reallocation: collect (cycle, protect) or reuse (event), allocate, write.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"trigger"}),
		phase: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "artt_traffic", Name: "phase_duration_seconds",
			Help:    "Duration of each part of a reallocation: collect (the Prometheus queries), read (the cluster from the informer cache), allocate, write (the DestinationRules).",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"phase"}),
		reaction: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "artt_traffic", Name: "reaction_seconds",
			Help:    "From a pod or node change seen in the API to the routing written.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}),
		lastCollect: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "last_collect_timestamp_seconds",
			Help: "When measurements were last collected successfully.",
		}),
		promUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "prometheus_up",
			Help: "1 when the last collection succeeded.",
		}),
		protections: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "artt_traffic", Name: "protections_total",
			Help: "Re-routings by the fast path between cycles because a group's health changed.",
		}),
		tracked: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "tracked",
			Help: "Components, groups (a component's pods on one node) and replicas the policy keeps learned state for; those gone from the cluster for --forget-after are dropped.",
		}, []string{"kind"}),
		resumed: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "resumed_components",
			Help: "Components whose learned state this leader took over from the annotations of the rules in force (resumed), or refused (unreadable, or found on a rule other than the one ARTT writes for the component it names), when it started leading.",
		}, []string{"result"}),
		signalMissing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "artt_traffic", Name: "signal_missing_pods",
			Help: "Pods measured at the last collection without the series of an optional signal (cpu_pressure: cgroup v2 PSI; cpu_throttling: a CPU limit's throttled periods; cpu_period: the quota's period; each counted among the pods whose CPU was measured; latency_mean: the latency histogram's sum and count, among the pods with a p95); they are judged without it.",
		}, []string{"signal"}),
	}
	reg.MustRegister(t.signalMissing, t.componentErrs, t.share, t.health, t.envoy, t.writes, t.topologyWrites, t.collectErrs, t.allocErrs, t.cycle, t.phase, t.reaction, t.lastCollect, t.promUp, t.protections, t.tracked, t.resumed)
	return t
}

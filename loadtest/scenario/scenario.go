// Package scenario is artt-lab's experiment file: the cluster (nodes, their
// speed, node-to-node delays), the application (components, their CPU cost
// and calls), the workload (constant, steps or a replayed trace), the control
// loop's timing, the policies to compare, injected events, duration and seed.
// Files are YAML or JSON; unknown fields and bad values are errors that name
// the field and the value. docs/scenarios.md documents every field.
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/artt-dev/artt/internal/fielderr"
)

// Duration is a time.Duration written as "15s", "5ms" or "2m".
type Duration struct{ time.Duration }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"15s\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as \"15s\" or \"5ms\"", s)
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// Scenario is one experiment.
type Scenario struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Duration    Duration    `json:"duration"`
	Warmup      Duration    `json:"warmup,omitempty"`
	Seed        uint64      `json:"seed,omitempty"`
	Cluster     Cluster     `json:"cluster"`
	Application Application `json:"application"`
	Workload    Workload    `json:"workload"`
	Control     Control     `json:"control,omitempty"`
	Runs        []Run       `json:"runs"`
	// Frontier, when set, adds one run per CPU target: the plain HPA's
	// cost–latency frontier that every other autoscaled run is judged
	// against at equal cost.
	Frontier *Frontier `json:"frontier,omitempty"`
	Events   []Event   `json:"events,omitempty"`

	// frontierAdded is set once the frontier block's runs are in Runs, so
	// that defaults filled twice add them once, and a run of the file's
	// own marked frontier does not stand in for the block's.
	frontierAdded bool
}

// Frontier is a sweep of the default HPA's CPU target, and optionally of
// the other autoscalers' own knobs: each sweep is a cost–latency frontier.
type Frontier struct {
	// Routing is the traffic policy of the sweep's runs (default
	// least-request, Istio's default).
	Routing string `json:"routing,omitempty"`
	// CPUTargets are the HPA targets swept, in percent (at least two).
	CPUTargets []float64 `json:"cpuTargets"`
	// KPATargets sweeps Knative's KPA over its per-pod concurrency target
	// (autoscaling.knative.dev/target); none or at least two.
	KPATargets []float64 `json:"kpaTargets,omitempty"`
	// RPSTargets sweeps keda-rps over its requests per second per pod
	// (the Prometheus trigger's threshold); none or at least two.
	RPSTargets []float64 `json:"rpsTargets,omitempty"`
	// OracleTargets sweeps the clairvoyant autoscalers over their target
	// utilisation of the pods' CPU requests, in percent, as the HPA's CPU
	// target (none or at least two): oracle behind the HPA knowing the
	// whole future, oracle behind the HPA knowing only the present
	// (lookahead 0s), and oracle-free with no HPA. Their frontiers are the
	// limits the other autoscalers are measured against.
	OracleTargets []float64 `json:"oracleTargets,omitempty"`
	// Floor adds a run whose autoscaled components keep maxReplicas
	// throughout, under the sweep's routing: the tail no autoscaler can
	// remove, against which runs are judged by their excess over it.
	Floor bool `json:"floor,omitempty"`
}

// Cluster is the emulated nodes and network.
type Cluster struct {
	Nodes  []Node `json:"nodes"`
	Delays Delays `json:"delays,omitempty"`
	// IngressNode is where external requests enter (default: the first node).
	IngressNode string `json:"ingressNode,omitempty"`
	// Ingress is the ingress gateway: its replicas and their nodes.
	Ingress Ingress `json:"ingress,omitempty"`
	// DataPlane is what carries the routes istiod sends: envoy (default,
	// a sidecar per pod) or grpc (proxyless gRPC clients, as the live loop
	// runs; see DataPlaneGRPC).
	DataPlane string `json:"dataPlane,omitempty"`
}

// The data planes a cluster can have.
const (
	// DataPlaneEnvoy is Envoy sidecars (envoylb.go in the emulator).
	DataPlaneEnvoy = "envoy"
	// DataPlaneGRPC is gRPC-Go's xDS clients fed by istiod: under
	// ROUND_ROBIN a locality is drawn at random by its weight (the
	// distribute row, else its pods) and a pod taken round robin inside
	// it; LEAST_REQUEST has no locality layer and drops the weights; there
	// is no outlier detection, RANDOM or PEAK_EWMA.
	DataPlaneGRPC = "grpc"
)

// Ingress is the ingress gateway deployment. Each replica is an Envoy with
// its own load-balancing state; external requests reach a replica chosen
// at random (the cloud load balancer in front).
type Ingress struct {
	// Replicas is the number of gateway pods (default 2).
	Replicas int `json:"replicas,omitempty"`
	// Nodes places the replicas, cycled (default: [ingressNode]).
	Nodes []string `json:"nodes,omitempty"`
}

// Node is one worker.
type Node struct {
	Name  string  `json:"name"`
	Cores float64 `json:"cores"`
	// Speed divides every request's CPU demand: 0.8 needs 25% more CPU per
	// request than 1.0 (default 1).
	Speed float64 `json:"speed,omitempty"`
}

// Delays are one-way node-to-node delays.
type Delays struct {
	// DefaultMs applies to every pair of distinct nodes not listed.
	DefaultMs float64 `json:"defaultMs,omitempty"`
	// LocalMs is the delay within a node (default 0.05).
	LocalMs *float64 `json:"localMs,omitempty"`
	// JitterMs is the standard deviation of a normal jitter added to each
	// network hop (truncated at 0).
	JitterMs float64 `json:"jitterMs,omitempty"`
	// Scale multiplies every delay (LATA's scenario B is scale 2).
	Scale float64 `json:"scale,omitempty"`
	// Racks groups nodes: distinct nodes of one rack are RackMs apart
	// (the top-of-rack switch), nodes of different racks DefaultMs (the
	// spine). Links override both.
	Racks  [][]string `json:"racks,omitempty"`
	RackMs float64    `json:"rackMs,omitempty"`
	// Links lists specific delays; Symmetric also sets the reverse direction.
	Links []Link `json:"links,omitempty"`
}

// Link is one directed delay.
type Link struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Ms        float64 `json:"ms"`
	Symmetric bool    `json:"symmetric,omitempty"`
}

// Application is the call graph.
type Application struct {
	Components []Component `json:"components"`
	// Entry is the component external requests call (default: the first).
	Entry string `json:"entry,omitempty"`
}

// Component is one microservice.
type Component struct {
	Name string `json:"name"`
	// CPUPerRequest is the mean CPU time per request on a speed-1 node.
	CPUPerRequest Duration `json:"cpuPerRequest"`
	// Demand is the distribution of a request's CPU time: exponential
	// (default), constant, or lognormal (coefficient of variation DemandCV).
	Demand   string  `json:"demand,omitempty"`
	DemandCV float64 `json:"demandCV,omitempty"`
	// CPULimit and CPURequest are per pod, in cores (defaults 1 and 0.5).
	CPULimit   float64 `json:"cpuLimit,omitempty"`
	CPURequest float64 `json:"cpuRequest,omitempty"`
	// Workers > 0 serves requests first come first served with that many in
	// service at once; 0 (default) is processor sharing within the limit.
	Workers int `json:"workers,omitempty"`
	// Replicas is the initial count; Min and Max bound autoscaling.
	Replicas    int `json:"replicas"`
	MinReplicas int `json:"minReplicas,omitempty"`
	MaxReplicas int `json:"maxReplicas,omitempty"`
	// Autoscale marks the components the run's autoscaler manages.
	Autoscale bool `json:"autoscale,omitempty"`
	// Placement pins the initial pods to nodes, in order (cycled); empty
	// lets the emulated scheduler place them.
	Placement []string `json:"placement,omitempty"`
	// Calls are the downstream components called, in order, after the
	// request's own CPU work.
	Calls []string `json:"calls,omitempty"`
}

// Workload is the open-loop arrival process.
type Workload struct {
	// Type is constant, steps or trace.
	Type string `json:"type"`
	// Rate is the constant rate (requests per second).
	Rate float64 `json:"rate,omitempty"`
	// Steps change the rate at given times.
	Steps []Step `json:"steps,omitempty"`
	// Trace replays a request-rate series.
	Trace *Trace `json:"trace,omitempty"`
	// Timeout is the client timeout (default 5s): slower requests count as
	// failures while the servers still spend their CPU.
	Timeout Duration `json:"timeout,omitempty"`
	// History, for a constant or steps workload, is what the lab's
	// Prometheus holds before the run: its first Period repeated Periods
	// times, as a TSDB backfilled from earlier days like it would. A trace
	// needs none: its earlier rows are its history.
	History *History `json:"history,omitempty"`
}

// History is a recurring workload's past.
type History struct {
	Period  Duration `json:"period"`
	Periods int      `json:"periods"`
}

// Step is one rate change.
type Step struct {
	At   Duration `json:"at"`
	Rate float64  `json:"rate"`
}

// Trace replays a series from a CSV file.
type Trace struct {
	// File is "nasa" (the week of NASA-HTTP shipped with ARTT) or a CSV path,
	// resolved against the scenario's directory or the --trace-dir flag.
	File string `json:"file"`
	// Column names the value column (default: the last column).
	Column string `json:"column,omitempty"`
	// Start skips this many rows (default 0).
	Start int `json:"start,omitempty"`
	// SecondsPerRow compresses time: one row (e.g. one trace minute) is
	// replayed over this many seconds.
	SecondsPerRow float64 `json:"secondsPerRow"`
	// MinRate and MaxRate map the replayed rows' values linearly onto
	// [MinRate, MaxRate] requests per second.
	MinRate float64 `json:"minRate"`
	MaxRate float64 `json:"maxRate"`
}

// Control is the timing of the emulated control plane.
type Control struct {
	SampleInterval  Duration `json:"sampleInterval,omitempty"`  // Prometheus scrape, default 15s
	TrafficCycle    Duration `json:"trafficCycle,omitempty"`    // traffic controller, default 30s
	PollingInterval Duration `json:"pollingInterval,omitempty"` // KEDA, default 15s
	HPASyncPeriod   Duration `json:"hpaSyncPeriod,omitempty"`   // default 15s
	PodStartup      Duration `json:"podStartup,omitempty"`      // default 10s
	ScaleDownWindow Duration `json:"scaleDownWindow,omitempty"` // default 300s
	CPUTarget       float64  `json:"cpuTarget,omitempty"`       // default HPA's target, default 70
	// HPAScaleUpPercent and HPAScaleUpPods are the HPA's scale-up policies
	// per sync (behavior.scaleUp: the larger of +percent and +pods; the
	// Kubernetes defaults 100 and 4). They bind every autoscaler behind
	// the HPA alike: hpa-cpu, lare, artt and keda-rps.
	HPAScaleUpPercent float64  `json:"hpaScaleUpPercent,omitempty"`
	HPAScaleUpPods    int      `json:"hpaScaleUpPods,omitempty"`
	ScalerMetadata    Metadata `json:"scalerMetadata,omitempty"` // extra trigger metadata for artt-scaler
}

// Metadata is ScaledObject trigger metadata passed to artt-scaler's parser.
type Metadata map[string]string

// Run is one policy combination to compare.
type Run struct {
	Name string `json:"name,omitempty"`
	// Routing: random, round-robin, least-request, localization, opttraffic,
	// lata, heart or artt.
	Routing string `json:"routing"`
	// Autoscaling: none, hpa-cpu, lare, artt, kpa (Knative's KPA on
	// concurrency), keda-rps (KEDA's Prometheus trigger on requests per
	// second per pod), or the clairvoyant limits oracle (behind the HPA)
	// and oracle-free (no HPA).
	Autoscaling string `json:"autoscaling,omitempty"`
	// Lookahead is how far into the workload's future an oracle sees
	// (default: all of it; 0s: only the present demand, exactly and at
	// once; negative: the demand that long after it came, as a scaler
	// reading scrapes that old sees it).
	Lookahead *Duration `json:"lookahead,omitempty"`
	// Target is kpa's per-pod concurrency target or keda-rps's requests per
	// second per pod.
	Target float64 `json:"target,omitempty"`
	// Floor keeps every autoscaled component at maxReplicas (set by the
	// frontier block's floor).
	Floor bool `json:"floor,omitempty"`
	// Placement places the pods, the initial ones and those added later:
	// default (Kubernetes' scheduler: the components' placement pins, else
	// LeastAllocated), larp (LATA's placement stage, package placement/larp)
	// or network-overhead (scheduler-plugins' NetworkOverhead score). Every
	// policy but default ignores the components' placement pins.
	Placement string `json:"placement,omitempty"`
	// LBPolicy is the sidecars' load-balancing policy inside a locality
	// (Istio's loadBalancer.simple): LEAST_REQUEST (default, Istio's
	// default), ROUND_ROBIN or RANDOM. The data-plane routings imply it:
	// least-request is LEAST_REQUEST, round-robin ROUND_ROBIN, random RANDOM.
	LBPolicy string `json:"lbPolicy,omitempty"`
	// CPUTarget overrides control.cpuTarget for this run's hpa-cpu, or is
	// an oracle's target utilisation of the pods' CPU requests.
	CPUTarget float64 `json:"cpuTarget,omitempty"`
	// Frontier marks a run of a sweep: of hpa-cpu, kpa, keda-rps or an
	// oracle (set by the scenario's frontier block, or by hand).
	Frontier bool `json:"frontier,omitempty"`
	// OutlierDetection, when set, ejects failing hosts in every sidecar as
	// Istio's DestinationRule outlierDetection does.
	OutlierDetection *OutlierDetection `json:"outlierDetection,omitempty"`
	// ScalerMetadata is trigger metadata for this run's lare or artt
	// autoscaler, over control.scalerMetadata.
	ScalerMetadata Metadata `json:"scalerMetadata,omitempty"`
}

// OutlierDetection is Istio's DestinationRule trafficPolicy.outlierDetection
// (consecutive-error ejection), applied by each sidecar on its own view.
type OutlierDetection struct {
	// Consecutive5xxErrors ejects a host after this many 5xx in a row
	// (default 5; 0 turns it off).
	Consecutive5xxErrors *int `json:"consecutive5xxErrors,omitempty"`
	// ConsecutiveGatewayErrors ejects after this many 502/503/504 in a row
	// (default 0, off).
	ConsecutiveGatewayErrors int `json:"consecutiveGatewayErrors,omitempty"`
	// Interval is the ejection sweep period: ejected hosts return at the
	// first sweep after their ejection time (default 10s).
	Interval Duration `json:"interval,omitempty"`
	// BaseEjectionTime × the number of times a host was ejected is how long
	// it stays out, at most 300s (default 30s).
	BaseEjectionTime Duration `json:"baseEjectionTime,omitempty"`
	// MaxEjectionPercent caps the hosts of a cluster ejected at once
	// (default 10, as Istio and Envoy).
	MaxEjectionPercent float64 `json:"maxEjectionPercent,omitempty"`
}

// Label is the run's display name.
func (r Run) Label() string {
	if r.Name != "" {
		return r.Name
	}
	switch {
	case r.Frontier && r.Autoscaling == "hpa-cpu":
		return fmt.Sprintf("hpa-%g", r.CPUTarget)
	case r.Frontier && IsOracle(r.Autoscaling):
		return fmt.Sprintf("%s-%g", r.Sweep(), r.CPUTarget)
	case r.Frontier:
		return fmt.Sprintf("%s-%g", r.Autoscaling, r.Target)
	case r.Floor:
		return "floor"
	}
	if r.Autoscaling == "" || r.Autoscaling == "none" {
		return r.Routing
	}
	return r.Routing + "+" + r.Autoscaling
}

// Sweep names the sweep a frontier run belongs to: its autoscaler, and an
// oracle's lookahead when it has one ("oracle-0s").
func (r Run) Sweep() string {
	if r.Lookahead != nil && IsOracle(r.Autoscaling) {
		return r.Autoscaling + "-" + r.Lookahead.String()
	}
	return r.Autoscaling
}

// IsOracle reports whether an autoscaling policy is a clairvoyant limit.
func IsOracle(autoscaling string) bool {
	return autoscaling == "oracle" || autoscaling == "oracle-free"
}

// Event is a change injected mid-run.
type Event struct {
	At Duration `json:"at"`
	// Type is node-slowdown (a slower CPU: more CPU per request),
	// node-contention (a neighbour keeps some of the node's cores busy),
	// node-quota (a CPU quota over the node's pods), pod-failure or
	// node-failure.
	Type string `json:"type"`
	Node string `json:"node,omitempty"`
	// Component (pod-failure): one of its pods fails (the first by name on
	// Node when Node is set).
	Component string `json:"component,omitempty"`
	// Speed (node-slowdown) is the node's new speed.
	Speed float64 `json:"speed,omitempty"`
	// Cores is, for node-contention, the cores the neighbour keeps busy
	// from now on (0 ends it), and for node-quota the quota in cores over
	// the node's pods together (the node's cores or more lift it).
	Cores float64 `json:"cores,omitempty"`
}

// Parse reads a YAML or JSON scenario, rejects unknown fields, fills
// defaults and validates it.
func Parse(data []byte) (*Scenario, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("not YAML or JSON: %w", err)
	}
	var doc any
	if err := json.Unmarshal(js, &doc); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if errs := checkShape(doc, reflect.TypeFor[Scenario](), ""); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, explainDecode(err)
	}
	s.fillDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// explainDecode turns encoding/json's errors into ones naming the field.
func explainDecode(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &FieldError{Field: te.Field, Value: te.Value, Reason: "wrong type, want " + te.Type.String()}
	}
	msg := err.Error()
	if i := strings.Index(msg, "unknown field "); i >= 0 {
		return &FieldError{Field: strings.Trim(msg[i+len("unknown field "):], `"`), Value: "(present)", Reason: "unknown field; see docs/scenarios.md"}
	}
	return fmt.Errorf("scenario: %w", err)
}

// FieldError names the bad field and its value.
type FieldError = fielderr.Error

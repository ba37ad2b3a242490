package scenario

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/artt-dev/artt/traffic/allocate"
)

// Known names.
var (
	// RoutingPolicies are the data-plane routings, then the table policies
	// package allocate builds but "equal" (random routing is its
	// per-request form).
	RoutingPolicies     = append(dataPlaneNames(), slices.DeleteFunc(slices.Clone(allocate.Names), func(n string) bool { return n == "equal" })...)
	AutoscalingPolicies = []string{"none", "hpa-cpu", "lare", "artt", "kpa", "keda-rps", "oracle", "oracle-free"}
	EventTypes          = []string{"node-slowdown", "node-contention", "node-quota", "pod-failure", "node-failure"}
	LBPolicies          = []string{"LEAST_REQUEST", "ROUND_ROBIN", "RANDOM", "PEAK_EWMA", "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN"}
	// PlacementPolicies place the pods: default is Kubernetes' scheduler
	// (components' placement pins, else LeastAllocated), larp LATA's
	// placement stage, network-overhead scheduler-plugins' NetworkOverhead.
	PlacementPolicies = []string{"default", "larp", "network-overhead"}
	// DataPlaneRoutings route by the sidecars' policy alone (no locality
	// weights); each implies its LBPolicy.
	DataPlaneRoutings = func() map[string]string {
		m := make(map[string]string, len(dataPlane))
		for _, d := range dataPlane {
			m[d.routing] = d.lbPolicy
		}
		return m
	}()
	Demands       = []string{"exponential", "constant", "lognormal"}
	WorkloadTypes = []string{"constant", "steps", "trace"}
)

// dataPlane lists the data-plane routings in the order they are offered,
// each with the lbPolicy it implies.
var dataPlane = []struct{ routing, lbPolicy string }{
	{"random", "RANDOM"}, {"round-robin", "ROUND_ROBIN"}, {"least-request", "LEAST_REQUEST"},
	{"peak-ewma", "PEAK_EWMA"}, {"cswrr", "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN"},
}

func dataPlaneNames() []string {
	out := make([]string, len(dataPlane))
	for i, d := range dataPlane {
		out[i] = d.routing
	}
	return out
}

func (s *Scenario) fillDefaults() {
	s.fillClusterDefaults()
	s.fillComponentDefaults()
	if s.Application.Entry == "" && len(s.Application.Components) > 0 {
		s.Application.Entry = s.Application.Components[0].Name
	}
	if s.Workload.Timeout.Duration == 0 {
		s.Workload.Timeout.Duration = 5 * time.Second
	}
	def := func(d *Duration, v time.Duration) {
		if d.Duration == 0 {
			d.Duration = v
		}
	}
	def(&s.Control.SampleInterval, 15*time.Second)
	def(&s.Control.TrafficCycle, 30*time.Second)
	def(&s.Control.PollingInterval, 15*time.Second)
	def(&s.Control.HPASyncPeriod, 15*time.Second)
	def(&s.Control.PodStartup, 10*time.Second)
	def(&s.Control.ScaleDownWindow, 300*time.Second)
	if s.Control.CPUTarget == 0 {
		s.Control.CPUTarget = 70
	}
	if s.Control.HPAScaleUpPercent == 0 {
		s.Control.HPAScaleUpPercent = 100
	}
	if s.Control.HPAScaleUpPods == 0 {
		s.Control.HPAScaleUpPods = 4
	}
	s.expandFrontier()
	for i := range s.Runs {
		r := &s.Runs[i]
		if r.Autoscaling == "" {
			r.Autoscaling = "none"
		}
		if r.Placement == "" {
			r.Placement = "default"
		}
		if r.LBPolicy == "" {
			r.LBPolicy = "LEAST_REQUEST"
			if p, ok := DataPlaneRoutings[r.Routing]; ok {
				r.LBPolicy = p
			}
		}
		if (r.Autoscaling == "hpa-cpu" || IsOracle(r.Autoscaling)) && r.CPUTarget == 0 {
			r.CPUTarget = s.Control.CPUTarget
		}
		if od := r.OutlierDetection; od != nil {
			if od.Consecutive5xxErrors == nil {
				v := 5
				od.Consecutive5xxErrors = &v
			}
			def(&od.Interval, 10*time.Second)
			def(&od.BaseEjectionTime, 30*time.Second)
			if od.MaxEjectionPercent == 0 {
				od.MaxEjectionPercent = 10
			}
		}
	}
}

// fillClusterDefaults gives the nodes, the ingress, the data plane and the
// delays their defaults.
func (s *Scenario) fillClusterDefaults() {
	for i := range s.Cluster.Nodes {
		if s.Cluster.Nodes[i].Speed == 0 {
			s.Cluster.Nodes[i].Speed = 1
		}
	}
	if s.Cluster.IngressNode == "" && len(s.Cluster.Nodes) > 0 {
		s.Cluster.IngressNode = s.Cluster.Nodes[0].Name
	}
	if s.Cluster.Ingress.Replicas == 0 {
		s.Cluster.Ingress.Replicas = 2
	}
	if s.Cluster.DataPlane == "" {
		s.Cluster.DataPlane = DataPlaneEnvoy
	}
	if len(s.Cluster.Ingress.Nodes) == 0 && s.Cluster.IngressNode != "" {
		s.Cluster.Ingress.Nodes = []string{s.Cluster.IngressNode}
	}
	if s.Cluster.Delays.LocalMs == nil {
		v := 0.05
		s.Cluster.Delays.LocalMs = &v
	}
	if s.Cluster.Delays.Scale == 0 {
		s.Cluster.Delays.Scale = 1
	}
}

// fillComponentDefaults gives every component its default demand
// distribution, CPU limit and request, and replica bounds.
func (s *Scenario) fillComponentDefaults() {
	for i := range s.Application.Components {
		c := &s.Application.Components[i]
		if c.Demand == "" {
			c.Demand = "exponential"
		}
		if c.CPULimit == 0 {
			c.CPULimit = 1
		}
		if c.CPURequest == 0 {
			c.CPURequest = 0.5
		}
		if c.MinReplicas == 0 {
			c.MinReplicas = 1
		}
		if c.MaxReplicas == 0 {
			c.MaxReplicas = max(c.Replicas, 10)
		}
	}
}

// expandFrontier adds the frontier block's runs: one per swept target of
// each autoscaler, and the floor.
func (s *Scenario) expandFrontier() {
	f := s.Frontier
	if f == nil {
		return
	}
	if f.Routing == "" {
		f.Routing = "least-request"
	}
	if s.frontierAdded {
		return
	}
	s.frontierAdded = true
	for _, t := range f.CPUTargets {
		s.Runs = append(s.Runs, Run{Routing: f.Routing, Autoscaling: "hpa-cpu", CPUTarget: t, Frontier: true})
	}
	for _, t := range f.KPATargets {
		s.Runs = append(s.Runs, Run{Routing: f.Routing, Autoscaling: "kpa", Target: t, Frontier: true})
	}
	for _, t := range f.RPSTargets {
		s.Runs = append(s.Runs, Run{Routing: f.Routing, Autoscaling: "keda-rps", Target: t, Frontier: true})
	}
	present := &Duration{}
	for _, o := range []struct {
		autoscaling string
		lookahead   *Duration
	}{{"oracle", nil}, {"oracle", present}, {"oracle-free", nil}} {
		for _, t := range f.OracleTargets {
			s.Runs = append(s.Runs, Run{Routing: f.Routing, Autoscaling: o.autoscaling, Lookahead: o.lookahead, CPUTarget: t, Frontier: true})
		}
	}
	if f.Floor {
		s.Runs = append(s.Runs, Run{Routing: f.Routing, Autoscaling: "none", Floor: true})
	}
}

// sweptAutoscalers are the autoscalers a frontier can sweep.
var sweptAutoscalers = []string{"hpa-cpu", "kpa", "keda-rps", "oracle", "oracle-free"}

func bad(field string, value any, reason string) error {
	return &FieldError{Field: field, Value: value, Reason: reason}
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// Validate checks every field and returns every problem at once, each a
// *FieldError naming the field and the value, joined with errors.Join (a
// field with several problems reports its first): whoever writes a scenario
// fixes them all in one edit.
func (s *Scenario) Validate() error {
	var errs []error
	if s.Name == "" {
		errs = append(errs, bad("name", `""`, "required"))
	}
	if s.Duration.Duration <= 0 || s.Duration.Duration > MaxDuration {
		errs = append(errs, bad("duration", s.Duration, fmt.Sprintf("must be positive and at most %s", MaxDuration)))
	}
	if s.Warmup.Duration < 0 || s.Warmup.Duration >= s.Duration.Duration {
		errs = append(errs, bad("warmup", s.Warmup, "must be ≥ 0 and shorter than duration"))
	}
	clusterErrs, nodes := s.validateCluster()
	errs = append(errs, clusterErrs...)
	appErrs, comps := s.validateApplication(nodes)
	errs = append(errs, appErrs...)
	errs = append(errs, s.validateWorkload()...)
	errs = append(errs, s.validateControl()...)
	errs = append(errs, s.validateRuns()...)
	errs = append(errs, s.Frontier.validate()...)
	errs = append(errs, s.validateEvents(nodes, comps)...)
	return errors.Join(errs...)
}

// validateCluster checks the nodes, the ingress and the delays, and
// returns the node names.
func (s *Scenario) validateCluster() ([]error, map[string]bool) {
	var errs []error
	nodes := map[string]bool{}
	if len(s.Cluster.Nodes) == 0 || len(s.Cluster.Nodes) > MaxNodes {
		errs = append(errs, bad("cluster.nodes", fmt.Sprintf("%d nodes", len(s.Cluster.Nodes)), fmt.Sprintf("from one node to %d", MaxNodes)))
	}
	for i, n := range s.Cluster.Nodes {
		f := fmt.Sprintf("cluster.nodes[%d]", i)
		switch {
		case n.Name == "":
			errs = append(errs, bad(f+".name", `""`, "required"))
		case nodes[n.Name]:
			errs = append(errs, bad(f+".name", n.Name, "duplicate node"))
		case !positive(n.Cores) || n.Cores > MaxNodeCores:
			errs = append(errs, bad(f+".cores", n.Cores, fmt.Sprintf("must be in (0, %d]", MaxNodeCores)))
		case !positive(n.Speed) || n.Speed > MaxSpeed:
			errs = append(errs, bad(f+".speed", n.Speed, fmt.Sprintf("must be in (0, %d]", MaxSpeed)))
		}
		nodes[n.Name] = true
	}
	if !nodes[s.Cluster.IngressNode] {
		errs = append(errs, bad("cluster.ingressNode", s.Cluster.IngressNode, "not a node of the cluster"))
	}
	if s.Cluster.Ingress.Replicas < 1 || s.Cluster.Ingress.Replicas > MaxPods {
		errs = append(errs, bad("cluster.ingress.replicas", s.Cluster.Ingress.Replicas, fmt.Sprintf("must be in [1, %d]", MaxPods)))
	}
	if d := s.Cluster.DataPlane; d != DataPlaneEnvoy && d != DataPlaneGRPC {
		errs = append(errs, bad("cluster.dataPlane", d, "must be "+DataPlaneEnvoy+" or "+DataPlaneGRPC))
	}
	for i, n := range s.Cluster.Ingress.Nodes {
		if !nodes[n] {
			errs = append(errs, bad(fmt.Sprintf("cluster.ingress.nodes[%d]", i), n, "not a node of the cluster"))
		}
	}
	errs = append(errs, s.Cluster.Delays.validate(nodes)...)
	return errs, nodes
}

// validate checks the delays against the nodes they name.
func (d Delays) validate(nodes map[string]bool) []error {
	var errs []error
	for _, c := range []struct {
		f string
		v float64
	}{{"cluster.delays.defaultMs", d.DefaultMs}, {"cluster.delays.localMs", *d.LocalMs}, {"cluster.delays.jitterMs", d.JitterMs}, {"cluster.delays.rackMs", d.RackMs}} {
		if !(c.v >= 0 && c.v <= MaxDelayMs) {
			errs = append(errs, bad(c.f, c.v, fmt.Sprintf("must be in [0, %d]", MaxDelayMs)))
		}
	}
	if !positive(d.Scale) || d.Scale > MaxDelayScale {
		errs = append(errs, bad("cluster.delays.scale", d.Scale, fmt.Sprintf("must be in (0, %d]", MaxDelayScale)))
	}
	rackOf := map[string]int{}
	for i, rack := range d.Racks {
		for j, n := range rack {
			f := fmt.Sprintf("cluster.delays.racks[%d][%d]", i, j)
			if prev, ok := rackOf[n]; ok {
				errs = append(errs, bad(f, n, fmt.Sprintf("already in racks[%d]: a node is in one rack", prev)))
			} else if !nodes[n] {
				errs = append(errs, bad(f, n, "not a node of the cluster"))
			}
			rackOf[n] = i
		}
	}
	for i, l := range d.Links {
		f := fmt.Sprintf("cluster.delays.links[%d]", i)
		switch {
		case !nodes[l.From]:
			errs = append(errs, bad(f+".from", l.From, "not a node of the cluster"))
		case !nodes[l.To]:
			errs = append(errs, bad(f+".to", l.To, "not a node of the cluster"))
		case !(l.Ms >= 0 && l.Ms <= MaxDelayMs):
			errs = append(errs, bad(f+".ms", l.Ms, fmt.Sprintf("must be in [0, %d]", MaxDelayMs)))
		}
	}
	return errs
}

// validateApplication checks the components, their placement on nodes
// and their calls (a cycle only once every call is valid), and returns
// the component names.
func (s *Scenario) validateApplication(nodes map[string]bool) ([]error, map[string]bool) {
	var errs []error
	componentsFrom := len(errs)
	comps := map[string]bool{}
	if len(s.Application.Components) == 0 {
		errs = append(errs, bad("application.components", "[]", "at least one component"))
	}
	for i, c := range s.Application.Components {
		if c.Name == "" || comps[c.Name] {
			errs = append(errs, bad(fmt.Sprintf("application.components[%d].name", i), c.Name, "required and unique"))
		}
		comps[c.Name] = true
	}
	for i, c := range s.Application.Components {
		f := fmt.Sprintf("application.components[%d]", i)
		switch {
		case c.CPUPerRequest.Duration <= 0:
			errs = append(errs, bad(f+".cpuPerRequest", c.CPUPerRequest, "must be positive"))
		case !slices.Contains(Demands, c.Demand):
			errs = append(errs, bad(f+".demand", c.Demand, "must be one of "+strings.Join(Demands, ", ")))
		case c.Demand == "lognormal" && !positive(c.DemandCV):
			errs = append(errs, bad(f+".demandCV", c.DemandCV, "lognormal needs a coefficient of variation > 0"))
		case !positive(c.CPULimit):
			errs = append(errs, bad(f+".cpuLimit", c.CPULimit, "must be > 0"))
		case !positive(c.CPURequest) || c.CPURequest > c.CPULimit:
			errs = append(errs, bad(f+".cpuRequest", c.CPURequest, "must be > 0 and ≤ cpuLimit"))
		case c.Workers < 0 || c.Workers > MaxWorkers:
			errs = append(errs, bad(f+".workers", c.Workers, fmt.Sprintf("must be in [0, %d]", MaxWorkers)))
		case c.Replicas < 1 || c.Replicas > MaxPods:
			errs = append(errs, bad(f+".replicas", c.Replicas, fmt.Sprintf("must be in [1, %d]", MaxPods)))
		case c.MinReplicas < 1 || c.MinReplicas > c.Replicas:
			errs = append(errs, bad(f+".minReplicas", c.MinReplicas, "must be in [1, replicas]"))
		case c.MaxReplicas < c.Replicas || c.MaxReplicas > MaxPods:
			errs = append(errs, bad(f+".maxReplicas", c.MaxReplicas, fmt.Sprintf("must be in [replicas, %d]", MaxPods)))
		}
		for j, p := range c.Placement {
			if !nodes[p] {
				errs = append(errs, bad(fmt.Sprintf("%s.placement[%d]", f, j), p, "not a node of the cluster"))
			}
		}
		for j, call := range c.Calls {
			if !comps[call] || call == c.Name {
				errs = append(errs, bad(fmt.Sprintf("%s.calls[%d]", f, j), call, "must name another component"))
			}
		}
	}
	if !comps[s.Application.Entry] {
		errs = append(errs, bad("application.entry", s.Application.Entry, "not a component"))
	}
	// A cycle is only looked for once every component and call is valid.
	if len(errs) == componentsFrom {
		errs = append(errs, s.validateSize()...)
	}
	return errs, comps
}

// validateSize checks, once every component and call is valid, that the
// call graph has no cycle, that a request's calls and the pods stay within
// the lab's bounds.
func (s *Scenario) validateSize() []error {
	if cyc := s.cycle(); cyc != "" {
		return []error{bad("application.components", cyc, "the call graph must not have cycles")}
	}
	var errs []error
	if n := s.CallsPerRequest(); n > MaxCallsPerRequest {
		errs = append(errs, bad("application.components", fmt.Sprintf("more than %d calls a request", MaxCallsPerRequest), "the calls one request makes down the call graph are bounded"))
	}
	pods := s.Cluster.Ingress.Replicas
	for _, c := range s.Application.Components {
		pods += c.MaxReplicas
	}
	if pods > MaxPods {
		errs = append(errs, bad("application.components", fmt.Sprintf("%d pods at maxReplicas with the gateway's", pods), fmt.Sprintf("a run may hold at most %d pods", MaxPods)))
	}
	return errs
}

// validateWorkload checks the arrival process and the client timeout.
func (s *Scenario) validateWorkload() []error {
	var errs []error
	w := s.Workload
	switch w.Type {
	case "constant":
		if !positive(w.Rate) || w.Rate > MaxRate {
			errs = append(errs, bad("workload.rate", w.Rate, fmt.Sprintf("must be in (0, %d]", MaxRate)))
		}
	case "steps":
		if len(w.Steps) == 0 {
			errs = append(errs, bad("workload.steps", "[]", "at least one step"))
		}
		for i, st := range w.Steps {
			if !(st.Rate >= 0 && st.Rate <= MaxRate) || st.At.Duration < 0 || (i > 0 && st.At.Duration < w.Steps[i-1].At.Duration) {
				errs = append(errs, bad(fmt.Sprintf("workload.steps[%d]", i), fmt.Sprintf("%s@%v", st.At, st.Rate), fmt.Sprintf("rates in [0, %d], times ≥ 0 and in order", MaxRate)))
			}
		}
	case "trace":
		t := w.Trace
		switch {
		case t == nil || t.File == "":
			errs = append(errs, bad("workload.trace.file", `""`, "required for a trace workload"))
		case !positive(t.SecondsPerRow):
			errs = append(errs, bad("workload.trace.secondsPerRow", t.SecondsPerRow, "must be > 0"))
		case !(t.MinRate >= 0 && t.MaxRate > t.MinRate && t.MaxRate <= MaxRate):
			errs = append(errs, bad("workload.trace.maxRate", t.MaxRate, fmt.Sprintf("need 0 ≤ minRate < maxRate ≤ %d", MaxRate)))
		case t.Start < 0:
			errs = append(errs, bad("workload.trace.start", t.Start, "must be ≥ 0"))
		}
	default:
		errs = append(errs, bad("workload.type", w.Type, "must be one of "+strings.Join(WorkloadTypes, ", ")))
	}
	if w.Timeout.Duration <= 0 || w.Timeout.Duration > MaxTimeout {
		errs = append(errs, bad("workload.timeout", w.Timeout, fmt.Sprintf("must be positive and at most %s", MaxTimeout)))
	}
	return append(errs, s.validateHistory()...)
}

// validateHistory checks a constant or steps workload's history: a period
// within the run, repeated back at most MaxHistory.
func (s *Scenario) validateHistory() []error {
	h := s.Workload.History
	switch {
	case h == nil:
		return nil
	case s.Workload.Type == "trace":
		return []error{bad("workload.history", "set", "a trace's history is its rows before workload.trace.start")}
	case h.Period.Duration < time.Second || h.Period.Duration > s.Duration.Duration:
		return []error{bad("workload.history.period", h.Period, fmt.Sprintf("must be at least 1s and at most the duration (%s)", s.Duration))}
	case h.Periods < 1 || time.Duration(h.Periods)*h.Period.Duration > MaxHistory:
		return []error{bad("workload.history.periods", h.Periods, fmt.Sprintf("must be at least 1, and periods × period at most %s", MaxHistory))}
	}
	return nil
}

// validateControl checks the control loop's knobs.
func (s *Scenario) validateControl() []error {
	var errs []error
	if s.Control.CPUTarget <= 0 || s.Control.CPUTarget > 1000 {
		errs = append(errs, bad("control.cpuTarget", s.Control.CPUTarget, "must be in (0, 1000] percent"))
	}
	if !positive(s.Control.HPAScaleUpPercent) {
		errs = append(errs, bad("control.hpaScaleUpPercent", s.Control.HPAScaleUpPercent, "must be above 0"))
	}
	if s.Control.HPAScaleUpPods < 1 || s.Control.HPAScaleUpPods > MaxPods {
		errs = append(errs, bad("control.hpaScaleUpPods", s.Control.HPAScaleUpPods, fmt.Sprintf("must be in [1, %d]", MaxPods)))
	}
	c := s.Control
	for _, p := range []struct {
		field string
		d     Duration
	}{{"control.sampleInterval", c.SampleInterval}, {"control.trafficCycle", c.TrafficCycle}, {"control.pollingInterval", c.PollingInterval}, {"control.hpaSyncPeriod", c.HPASyncPeriod}} {
		if p.d.Duration < MinControlInterval || p.d.Duration > MaxDuration {
			errs = append(errs, bad(p.field, p.d, fmt.Sprintf("must be in [%s, %s]", MinControlInterval, MaxDuration)))
		}
	}
	for _, p := range []struct {
		field string
		d     Duration
	}{{"control.podStartup", c.PodStartup}, {"control.scaleDownWindow", c.ScaleDownWindow}} {
		if p.d.Duration < 0 || p.d.Duration > MaxDuration {
			errs = append(errs, bad(p.field, p.d, fmt.Sprintf("must be in [0, %s]", MaxDuration)))
		}
	}
	return errs
}

// validateEvents checks the injected events against the nodes and
// components.
func (s *Scenario) validateEvents(nodes, comps map[string]bool) []error {
	var errs []error
	for i, e := range s.Events {
		f := fmt.Sprintf("events[%d]", i)
		switch {
		case !slices.Contains(EventTypes, e.Type):
			errs = append(errs, bad(f+".type", e.Type, "must be one of "+strings.Join(EventTypes, ", ")))
		case e.At.Duration < 0 || e.At.Duration >= s.Duration.Duration:
			errs = append(errs, bad(f+".at", e.At, "must be within the run"))
		case e.Type != "pod-failure" && !nodes[e.Node]:
			errs = append(errs, bad(f+".node", e.Node, "not a node of the cluster"))
		case e.Type == "node-slowdown" && !(positive(e.Speed) && e.Speed <= MaxSpeed):
			errs = append(errs, bad(f+".speed", e.Speed, fmt.Sprintf("must be in (0, %d]", MaxSpeed)))
		case e.Type == "node-contention" && !(e.Cores >= 0 && e.Cores <= MaxNodeCores):
			errs = append(errs, bad(f+".cores", e.Cores, fmt.Sprintf("must be in [0, %d] (0 ends the contention)", MaxNodeCores)))
		case e.Type == "node-quota" && !(positive(e.Cores) && e.Cores <= MaxNodeCores):
			errs = append(errs, bad(f+".cores", e.Cores, fmt.Sprintf("must be in (0, %d]", MaxNodeCores)))
		case e.Type != "node-slowdown" && e.Speed != 0:
			errs = append(errs, bad(f+".speed", e.Speed, "only node-slowdown takes a speed"))
		case e.Type != "node-contention" && e.Type != "node-quota" && e.Cores != 0:
			errs = append(errs, bad(f+".cores", e.Cores, "only node-contention and node-quota take cores"))
		case e.Type == "pod-failure" && !comps[e.Component]:
			errs = append(errs, bad(f+".component", e.Component, "not a component"))
		case e.Type == "pod-failure" && e.Node != "" && !nodes[e.Node]:
			errs = append(errs, bad(f+".node", e.Node, "not a node of the cluster"))
		}
	}
	return errs
}

// validateRuns checks every run's policies and knobs, and that no two
// share a label.
func (s *Scenario) validateRuns() []error {
	var errs []error
	if len(s.Runs) == 0 {
		errs = append(errs, bad("runs", "[]", "at least one run"))
	}
	labels := map[string]bool{}
	for i, r := range s.Runs {
		f := fmt.Sprintf("runs[%d]", i)
		if !slices.Contains(RoutingPolicies, r.Routing) {
			errs = append(errs, bad(f+".routing", r.Routing, "must be one of "+strings.Join(RoutingPolicies, ", ")))
		}
		if !slices.Contains(AutoscalingPolicies, r.Autoscaling) {
			errs = append(errs, bad(f+".autoscaling", r.Autoscaling, "must be one of "+strings.Join(AutoscalingPolicies, ", ")))
		}
		if !slices.Contains(LBPolicies, r.LBPolicy) {
			errs = append(errs, bad(f+".lbPolicy", r.LBPolicy, "must be one of "+strings.Join(LBPolicies, ", ")))
		}
		if !slices.Contains(PlacementPolicies, r.Placement) {
			errs = append(errs, bad(f+".placement", r.Placement, "must be one of "+strings.Join(PlacementPolicies, ", ")))
		}
		if p, ok := DataPlaneRoutings[r.Routing]; ok && r.LBPolicy != p {
			errs = append(errs, bad(f+".lbPolicy", r.LBPolicy, "routing "+r.Routing+" is the sidecars' "+p+" policy; set lbPolicy only with a table policy"))
		}
		errs = append(errs, r.validateAutoscaling(f)...)
		if s.Cluster.DataPlane == DataPlaneGRPC {
			errs = append(errs, r.validateOnGRPC(f)...)
		}
		if err := r.OutlierDetection.validate(f + ".outlierDetection"); err != nil {
			errs = append(errs, err)
		}
		if labels[r.Label()] {
			errs = append(errs, bad(f+".name", r.Label(), "duplicate run"))
		}
		labels[r.Label()] = true
	}
	return errs
}

// validateOnGRPC refuses what proxyless gRPC cannot carry; f is the run's
// field path.
func (r Run) validateOnGRPC(f string) []error {
	var errs []error
	_, dataPlane := DataPlaneRoutings[r.Routing]
	switch {
	case r.LBPolicy == "RANDOM" || r.LBPolicy == "PEAK_EWMA":
		errs = append(errs, bad(f+".lbPolicy", r.LBPolicy, "gRPC's xDS clients have no "+r.LBPolicy+" balancer"))
	case !dataPlane && r.LBPolicy != "ROUND_ROBIN" && r.LBPolicy != "LEAST_REQUEST":
		errs = append(errs, bad(f+".lbPolicy", r.LBPolicy, "gRPC honours locality weights only under ROUND_ROBIN (its least_request has no locality layer): set lbPolicy ROUND_ROBIN, or LEAST_REQUEST for artt-traffic to write ROUND_ROBIN with each table and LEAST_REQUEST where it lifts one"))
	}
	if r.OutlierDetection != nil {
		errs = append(errs, bad(f+".outlierDetection", "set", "istiod sends gRPC clients no outlier detection"))
	}
	return errs
}

// validateAutoscaling checks the run's autoscaler knobs; f is its field
// path.
func (r Run) validateAutoscaling(f string) []error {
	var errs []error
	targeted := r.Autoscaling == "hpa-cpu" || IsOracle(r.Autoscaling)
	if r.CPUTarget != 0 && (!targeted || r.CPUTarget < 0 || r.CPUTarget > 1000) {
		errs = append(errs, bad(f+".cpuTarget", r.CPUTarget, "only for hpa-cpu and oracle runs, in (0, 1000] percent"))
	}
	if r.Lookahead != nil && !IsOracle(r.Autoscaling) {
		errs = append(errs, bad(f+".lookahead", r.Lookahead, "only for oracle and oracle-free runs"))
	}
	if r.Frontier && !slices.Contains(sweptAutoscalers, r.Autoscaling) {
		errs = append(errs, bad(f+".frontier", r.Frontier, "a frontier is a sweep of hpa-cpu, kpa, keda-rps or oracle runs"))
	}
	needsTarget := r.Autoscaling == "kpa" || r.Autoscaling == "keda-rps"
	if needsTarget != (r.Target != 0) || (needsTarget && !positive(r.Target)) {
		errs = append(errs, bad(f+".target", r.Target, "required for kpa (concurrency per pod) and keda-rps (requests per second per pod), a number above 0; only for them"))
	}
	if r.Floor && r.Autoscaling != "none" {
		errs = append(errs, bad(f+".floor", r.Floor, "a floor run keeps maxReplicas and autoscales nothing (autoscaling: none)"))
	}
	return errs
}

// validate checks the frontier block's sweeps (nil: none).
func (f *Frontier) validate() []error {
	if f == nil {
		return nil
	}
	var errs []error
	if !slices.Contains(RoutingPolicies, f.Routing) {
		errs = append(errs, bad("frontier.routing", f.Routing, "must be one of "+strings.Join(RoutingPolicies, ", ")))
	}
	if len(f.CPUTargets) < 2 {
		errs = append(errs, bad("frontier.cpuTargets", f.CPUTargets, "at least two targets make a frontier"))
	}
	for i, t := range f.CPUTargets {
		if !(t > 0 && t <= 1000) || (i > 0 && t <= f.CPUTargets[i-1]) {
			errs = append(errs, bad(fmt.Sprintf("frontier.cpuTargets[%d]", i), t, "must be in (0, 1000] percent and increasing"))
		}
	}
	for _, sweep := range []struct {
		field   string
		targets []float64
	}{{"frontier.kpaTargets", f.KPATargets}, {"frontier.rpsTargets", f.RPSTargets}, {"frontier.oracleTargets", f.OracleTargets}} {
		if len(sweep.targets) == 1 {
			errs = append(errs, bad(sweep.field, sweep.targets, "none, or at least two targets to make a frontier"))
		}
		for i, t := range sweep.targets {
			if !positive(t) || (i > 0 && t <= sweep.targets[i-1]) {
				errs = append(errs, bad(fmt.Sprintf("%s[%d]", sweep.field, i), t, "must be above 0 and increasing"))
			}
		}
	}
	return errs
}

func (od *OutlierDetection) validate(f string) error {
	if od == nil {
		return nil
	}
	switch {
	case *od.Consecutive5xxErrors < 0:
		return bad(f+".consecutive5xxErrors", *od.Consecutive5xxErrors, "must be ≥ 0")
	case od.ConsecutiveGatewayErrors < 0:
		return bad(f+".consecutiveGatewayErrors", od.ConsecutiveGatewayErrors, "must be ≥ 0")
	case *od.Consecutive5xxErrors == 0 && od.ConsecutiveGatewayErrors == 0:
		return bad(f, "{}", "set consecutive5xxErrors or consecutiveGatewayErrors above 0")
	case od.Interval.Duration < MinControlInterval:
		return bad(f+".interval", od.Interval, fmt.Sprintf("must be at least %s", MinControlInterval))
	case od.BaseEjectionTime.Duration <= 0:
		return bad(f+".baseEjectionTime", od.BaseEjectionTime, "must be positive")
	case !(od.MaxEjectionPercent > 0 && od.MaxEjectionPercent <= 100):
		return bad(f+".maxEjectionPercent", od.MaxEjectionPercent, "must be in (0, 100]")
	}
	return nil
}

// cycle returns a component on a call cycle, or "".
func (s *Scenario) cycle() string {
	calls := map[string][]string{}
	for _, c := range s.Application.Components {
		calls[c.Name] = c.Calls
	}
	state := map[string]int{} // 0 new, 1 on stack, 2 done
	var visit func(string) string
	visit = func(n string) string {
		state[n] = 1
		for _, m := range calls[n] {
			if state[m] == 1 {
				return m
			}
			if state[m] == 0 {
				if c := visit(m); c != "" {
					return c
				}
			}
		}
		state[n] = 2
		return ""
	}
	for _, c := range s.Application.Components {
		if state[c.Name] == 0 {
			if cyc := visit(c.Name); cyc != "" {
				return cyc
			}
		}
	}
	return ""
}

// FillAndValidate fills defaults and validates a scenario built in code.
func (s *Scenario) FillAndValidate() error {
	s.fillDefaults()
	return s.Validate()
}

package controller

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
)

// Labels and annotations ARTT reads.
const (
	// ManagedLabel on a Deployment opts it in.
	ManagedLabel = "traffic.artt.dev/managed"
	// HostAnnotation on a Deployment names its Service host.
	HostAnnotation = "traffic.artt.dev/host"
	// Node labels that make up an Istio locality.
	RegionLabel  = "topology.kubernetes.io/region"
	ZoneLabel    = "topology.kubernetes.io/zone"
	SubzoneLabel = "topology.istio.io/subzone"
)

// apiState is what the API says, read from the informer cache.
type apiState struct {
	deployments []appsv1.Deployment
	pods        []corev1.Pod
	nodes       []corev1.Node
	// rules are the DestinationRules of the deployments' namespaces: the
	// users' say how their callers pick a pod, and ARTT writes into them.
	rules []*networkingv1.DestinationRule
	// dataPlane carries the rules (Options.DataPlane).
	dataPlane DataPlane
}

// component is a managed Deployment.
type component struct {
	name      string // namespace/name, the snapshot's component name
	namespace string
	workload  string
	host      string
	// uid is the Deployment's, which owns the rule ARTT creates for it.
	uid types.UID
	// setsSimple is true when ARTT writes the rule's loadBalancer.simple:
	// ROUND_ROBIN with a table, LEAST_REQUEST without (DataPlaneGRPC,
	// leavesPickToARTT).
	setsSimple bool
	// weightsDropped is true on gRPC where the user's rule sets a policy
	// other than ROUND_ROBIN: the clients drop the weights ARTT writes.
	weightsDropped bool
}

func componentName(namespace, name string) string { return namespace + "/" + name }

// hostOf is the Service host a managed Deployment is reached by.
func hostOf(d appsv1.Deployment) string {
	if h := d.Annotations[HostAnnotation]; h != "" {
		return h
	}
	return d.Name + "." + d.Namespace + ".svc.cluster.local"
}

// locality is a node's Istio locality, or "" when a part is missing.
func locality(n corev1.Node) string {
	r, z, s := n.Labels[RegionLabel], n.Labels[ZoneLabel], n.Labels[SubzoneLabel]
	if r == "" || z == "" || s == "" {
		return ""
	}
	return r + "/" + z + "/" + s
}

// nodeCPU is a node's allocatable CPU in cores, its capacity where it
// reports none, 0 where it reports neither.
func nodeCPU(n corev1.Node) float64 {
	if q, ok := n.Status.Allocatable[corev1.ResourceCPU]; ok {
		return q.AsApproximateFloat64()
	}
	return n.Status.Capacity.Cpu().AsApproximateFloat64()
}

func nodeReady(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podReady(p corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Spec.NodeName == "" || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// cpuLimit is the sum of the containers' CPU limits, 0 when any is unset.
func cpuLimit(p corev1.Pod) float64 {
	total := 0.0
	for _, c := range p.Spec.Containers {
		q, ok := c.Resources.Limits[corev1.ResourceCPU]
		if !ok {
			return 0
		}
		total += q.AsApproximateFloat64()
	}
	return total
}

// throttledPeriods is a pod's own-quota throttled periods per second. A
// pod without a CPU limit has no quota, and cAdvisor no throttling series
// for it: its CPU measured, it was throttled in none.
func throttledPeriods(m *Measurements, k podKey, limit float64) float64 {
	if v, ok := m.CPUThrottled[k]; ok {
		return v
	}
	if _, measured := m.CPU[k]; measured && limit == 0 {
		return 0
	}
	return math.NaN()
}

// cfsPeriod is a pod's quota period, 0 when unknown or not a sane
// period (the kernel takes 1 ms to 1 s).
func cfsPeriod(m *Measurements, k podKey) time.Duration {
	v, ok := m.CPUPeriod[k]
	if !ok || !(v >= 0.001 && v <= 1) {
		return 0
	}
	return time.Duration(v * float64(time.Second))
}

func valueOr(m map[podKey]float64, k podKey, fallback float64) float64 {
	if v, ok := m[k]; ok {
		return v
	}
	return fallback
}

// snapshot turns the cluster and the last measurements (nil before the
// first collection) into the core's input. Nodes without a full Istio
// locality cannot be addressed by distribute, so they count as not Ready.
func snapshot(c apiState, m *Measurements, now time.Time) (traffic.Snapshot, map[string]component) {
	s := traffic.Snapshot{At: now}
	if m != nil {
		s.MeasuredAt = m.At
	} else {
		m = &Measurements{}
	}
	for _, n := range c.nodes {
		loc := locality(n)
		s.Nodes = append(s.Nodes, traffic.Node{Name: n.Name, Ready: nodeReady(n) && loc != "", Locality: loc, CPU: nodeCPU(n)})
	}
	// The cache lists in no particular order; by name, the snapshot is the
	// same for the same cluster, and the delays below come out sorted.
	slices.SortFunc(s.Nodes, func(a, b traffic.Node) int { return strings.Compare(a.Name, b.Name) })
	nodeNames := make(map[string]bool, len(c.nodes))
	for _, n := range c.nodes {
		nodeNames[n.Name] = true
	}
	comps, byWorkload := addReplicas(&s, c, m, nodeNames)
	for pair, rate := range m.Calls {
		from, okFrom := byWorkload[pair[0]]
		to, okTo := byWorkload[pair[1]]
		if okFrom && okTo && from != to {
			s.Calls = append(s.Calls, graph.Call{From: from, To: to, Rate: rate})
		}
	}
	slices.SortFunc(s.Calls, func(a, b graph.Call) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	s.Delays = sortedDelays(s.Nodes, m.DelayMs)
	return s, comps
}

// addReplicas adds each managed Deployment to s as a component, and its
// pods on known nodes as replicas with their measurements; it returns the
// components by name and by workload.
func addReplicas(s *traffic.Snapshot, c apiState, m *Measurements, nodeNames map[string]bool) (map[string]component, map[workloadKey]string) {
	// Each Deployment's selector is matched against its own namespace's
	// pods only, and of those only the ones carrying a label value it
	// requires: a fleet has a hundred Deployments and ten thousand pods.
	podsIn := make(map[string]*podIndex)
	for i := range c.pods {
		p := &c.pods[i]
		if podsIn[p.Namespace] == nil {
			podsIn[p.Namespace] = &podIndex{byLabel: make(map[string]map[string][]*corev1.Pod)}
		}
		podsIn[p.Namespace].pods = append(podsIn[p.Namespace].pods, p)
	}
	comps := make(map[string]component)
	byWorkload := make(map[workloadKey]string)
	assigned := make(map[podKey]bool) // a pod matched by two selectors counts once
	for _, d := range c.deployments {
		name := componentName(d.Namespace, d.Name)
		comp := component{name: name, namespace: d.Namespace, workload: d.Name, host: hostOf(d), uid: d.UID}
		users := userRule(c.rules, comp)
		comp.setsSimple = c.dataPlane == DataPlaneGRPC && leavesPickToARTT(users)
		comp.weightsDropped = c.dataPlane == DataPlaneGRPC && !comp.setsSimple && !carriesWeightsOnGRPC(users)
		comps[name] = comp
		byWorkload[workloadKey{d.Namespace, d.Name}] = name
		s.Components = append(s.Components, traffic.Component{Name: name, Pick: pickOf(users), RoundRobinUnderTable: comp.setsSimple})
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		for _, p := range podsIn[d.Namespace].candidates(sel) {
			if !sel.Matches(labels.Set(p.Labels)) || !nodeNames[p.Spec.NodeName] {
				continue
			}
			k := podKey{p.Namespace, p.Name}
			if assigned[k] {
				continue
			}
			assigned[k] = true
			req := valueOr(m.Requests, k, math.NaN())
			errRate := math.NaN()
			if e, ok := m.Errors[k]; ok && req > 0 {
				errRate = math.Min(e/req, 1)
			}
			s.Replicas = append(s.Replicas, traffic.Replica{
				Name: p.Namespace + "/" + p.Name, Component: name, Node: p.Spec.NodeName, Ready: podReady(*p),
				CPU: valueOr(m.CPU, k, math.NaN()), CPULimit: cpuLimit(*p), Requests: req,
				LatencyP95: valueOr(m.Latency, k, math.NaN()), LatencyMean: valueOr(m.LatencyMean, k, math.NaN()), ErrorRate: errRate,
				CPUWaiting: valueOr(m.CPUWaiting, k, math.NaN()), ThrottledPeriods: throttledPeriods(m, k, cpuLimit(*p)),
				CFSPeriod: cfsPeriod(m, k),
			})
		}
	}
	return comps, byWorkload
}

// sortedDelays is the measured delays between known nodes, by source then
// target in the nodes' order: the measured pairs are gathered and sorted
// by node position, not found by probing every pair (a fleet probes a
// sample of its 250,000). Nil when none is measured.
func sortedDelays(nodes []traffic.Node, delayMs map[[2]string]float64) []graph.Delay {
	position := make(map[string]int, len(nodes))
	for i, n := range nodes {
		position[n.Name] = i
	}
	type placed struct {
		from, to int
		delay    graph.Delay
	}
	measured := make([]placed, 0, len(delayMs))
	for pair, ms := range delayMs {
		from, okFrom := position[pair[0]]
		to, okTo := position[pair[1]]
		if okFrom && okTo {
			measured = append(measured, placed{from, to, graph.Delay{From: pair[0], To: pair[1], Ms: ms}})
		}
	}
	slices.SortFunc(measured, func(a, b placed) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to)) })
	if len(measured) == 0 {
		return nil
	}
	out := make([]graph.Delay, len(measured))
	for i, p := range measured {
		out[i] = p.delay
	}
	return out
}

// podIndex is one namespace's pods, and an index of them by the value of
// each label a selector has asked about, built on first use.
type podIndex struct {
	pods    []*corev1.Pod
	byLabel map[string]map[string][]*corev1.Pod // label key → value → pods
}

// candidates returns the pods sel can match, in the order listed: those
// with the one value a requirement asks for (key = value, or key in a
// single value), or every pod when no requirement names one value. The
// caller still matches each against sel. A nil index has no pods.
func (ix *podIndex) candidates(sel labels.Selector) []*corev1.Pod {
	if ix == nil {
		return nil
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return ix.pods
	}
	for _, r := range reqs {
		op := r.Operator()
		if (op != selection.Equals && op != selection.DoubleEquals && op != selection.In) || r.Values().Len() != 1 {
			continue
		}
		byValue, ok := ix.byLabel[r.Key()]
		if !ok {
			byValue = make(map[string][]*corev1.Pod)
			for _, p := range ix.pods {
				if v, has := p.Labels[r.Key()]; has {
					byValue[v] = append(byValue[v], p)
				}
			}
			ix.byLabel[r.Key()] = byValue
		}
		return byValue[r.Values().UnsortedList()[0]]
	}
	return ix.pods
}

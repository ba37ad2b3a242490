package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/testcluster"
)

// CPURequest is the cores each of the application's pods requests.
const CPURequest = 0.5

// Nodes are the cluster's workers, each its own Istio locality.
var Nodes = []string{"node-1", "node-2", "node-3"}

// Locality is a node's Istio locality (region/zone/subzone).
func Locality(node string) string { return "lab/z/" + node }

// Workload is Deployments "web" and "gateway" in namespace "shop", placed
// by artt-scheduler on nodes kwok manages, and what a cluster would report
// about them: a Prometheus exporter serving cAdvisor's CPU counters,
// kube-state-metrics' CPU requests and Istio's request counter for web's
// ready pods. The workload's total CPU use is set by the test and shared by
// its ready pods.
type Workload struct {
	k8s      client.Client
	mu       sync.Mutex
	totalCPU float64              // cores used by the whole workload
	counters map[string]*cpuCount // per pod, kept continuous across changes
	served   map[string]*cpuCount // requests per pod, likewise
	arrived  map[string]*cpuCount // requests reaching each pod's sidecar, likewise
	// arrivals is the arriving requests over the served ones (1 unless a
	// test sends more than the pods serve).
	arrivals float64
	requests float64
	// demand is the request rate the workload serves, as a function of
	// time (constant unless a test ramps it).
	demand func(time.Time) float64
	last   time.Time
}

type cpuCount struct{ value, rate float64 }

// SchedulerName is the scheduler the application's pods ask for: the
// profile deploy/scheduler configures.
const SchedulerName = "artt-scheduler"

// NewWorkload creates the nodes, for kwok to run, and the application
// (Deployments "web" and "gateway", which calls web).
func NewWorkload(ctx context.Context, k8s client.Client) (*Workload, error) {
	for _, n := range Nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Annotations: testcluster.KwokAnnotation(),
			Labels: map[string]string{"kubernetes.io/hostname": n,
				"topology.kubernetes.io/region": "lab", "topology.kubernetes.io/zone": "z", "topology.istio.io/subzone": n}}}
		if err := k8s.Create(ctx, node); err != nil {
			return nil, err
		}
		// kwok keeps the capacity a node is given; a patch, as kwok may
		// already be writing the node's status.
		before := node.DeepCopy()
		node.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("256Gi"), corev1.ResourcePods: resource.MustParse("110")}
		node.Status.Allocatable = node.Status.Capacity
		if err := k8s.Status().Patch(ctx, node, client.MergeFrom(before)); err != nil {
			return nil, err
		}
	}
	for _, d := range []*appsv1.Deployment{deployment("web"), deployment("gateway")} {
		if err := k8s.Create(ctx, d); err != nil {
			return nil, err
		}
	}
	return &Workload{k8s: k8s, totalCPU: 0.3, counters: map[string]*cpuCount{}, served: map[string]*cpuCount{}, arrived: map[string]*cpuCount{}, arrivals: 1,
		last: time.Now(), demand: func(time.Time) float64 { return 100 }}, nil
}

// deployment is one of the application's Deployments, one replica of 0.5
// cores requested, scheduled by artt-scheduler and managed by artt-traffic.
// The gateway calls web.
func deployment(name string) *appsv1.Deployment {
	one := int32(1)
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{"app": name, "traffic.artt.dev/managed": "true"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: &intstr.IntOrString{Type: intstr.Int, IntVal: 1}, MaxUnavailable: &intstr.IntOrString{Type: intstr.Int, IntVal: 0}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{SchedulerName: SchedulerName, Containers: []corev1.Container{{
					Name: "app", Image: "registry.invalid/" + name + ":1",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
				}}},
			},
		},
	}
}

// SetCPU sets the workload's total CPU use in cores.
func (w *Workload) SetCPU(cores float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.totalCPU = cores
}

// SetArrivals sets the arriving requests as a multiple of those served:
// above 1, requests arrive that the pods do not serve (a backlog).
func (w *Workload) SetArrivals(factor float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.arrivals = factor
}

// SetDemand sets the request rate as a function of time.
func (w *Workload) SetDemand(rate func(time.Time) float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.demand = rate
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ReadyPods lists the web Deployment's ready pods, by name.
func (w *Workload) ReadyPods(ctx context.Context) ([]string, error) {
	pods, err := w.ReadyPodsOf(ctx, "web")
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names, err
}

// ReadyPodsOf lists an app's ready pods.
func (w *Workload) ReadyPodsOf(ctx context.Context, app string) ([]corev1.Pod, error) {
	var pods corev1.PodList
	if err := w.k8s.List(ctx, &pods, client.InNamespace("shop"), client.MatchingLabels{"app": app}); err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for i := range pods.Items {
		if p := &pods.Items[i]; p.DeletionTimestamp == nil && ready(p) {
			out = append(out, *p)
		}
	}
	return out, nil
}

// ServeHTTP is the exporter Prometheus scrapes: per web pod its CPU
// counter, CPU request, readiness, served requests (Istio's
// destination-side counter, per pod as Prometheus' pod target labels give
// it) and arriving ones (its sidecar's inbound downstream_rq_total), and the
// gateway's calls to web (the source-side counter artt-traffic reads the
// call graph from).
func (w *Workload) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	// The counters are advanced to the moment the scrape arrived, which is
	// the timestamp Prometheus gives the samples: listing the pods first
	// would add the list's latency, and at a 1 s scrape irate would read
	// its jitter (hundreds of milliseconds on a loaded machine) as rate.
	now := time.Now()
	pods, err := w.ReadyPods(r.Context())
	if err != nil {
		http.Error(rw, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	dt := max(now.Sub(w.last).Seconds(), 0)
	if now.After(w.last) {
		w.last = now
	}
	rate := w.demand(now)
	w.requests += rate * dt
	for _, cs := range []map[string]*cpuCount{w.counters, w.served, w.arrived} {
		for _, c := range cs {
			c.value += c.rate * dt
			c.rate = 0
		}
	}
	var b strings.Builder
	for _, p := range pods {
		c := w.counters[p]
		if c == nil {
			c = &cpuCount{}
			w.counters[p] = c
		}
		c.rate = w.totalCPU / float64(len(pods))
		fmt.Fprintf(&b, "container_cpu_usage_seconds_total{namespace=\"shop\",pod=%q,container=\"app\"} %g\n", p, c.value)
		fmt.Fprintf(&b, "kube_pod_container_resource_requests{namespace=\"shop\",pod=%q,container=\"app\",resource=\"cpu\",unit=\"core\"} %g\n", p, CPURequest)
		fmt.Fprintf(&b, "kube_pod_status_ready{namespace=\"shop\",pod=%q,condition=\"true\"} 1\n", p)
		// Each pod's share of the requests, as a counter kept continuous.
		s := w.served[p]
		if s == nil {
			s = &cpuCount{}
			w.served[p] = s
		}
		s.rate = rate / float64(len(pods))
		fmt.Fprintf(&b, "istio_requests_total{reporter=\"destination\",namespace=\"shop\",pod=%q,destination_workload=\"web\",destination_workload_namespace=\"shop\",response_code=\"200\"} %g\n", p, s.value)
		a := w.arrived[p]
		if a == nil {
			a = &cpuCount{}
			w.arrived[p] = a
		}
		a.rate = w.arrivals * rate / float64(len(pods))
		fmt.Fprintf(&b, "envoy_http_downstream_rq_total{namespace=\"shop\",pod=%q,envoy_http_conn_manager_prefix=\"inbound_0.0.0.0_8080\"} %g\n", p, a.value)
	}
	fmt.Fprintf(&b, "istio_requests_total{reporter=\"source\",source_workload=\"gateway\",source_workload_namespace=\"shop\",destination_workload=\"web\",destination_workload_namespace=\"shop\",response_code=\"200\"} %g\n", w.requests)
	rw.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = rw.Write([]byte(b.String()))
}

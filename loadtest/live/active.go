package live

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/live/loadgen"
	"github.com/artt-dev/artt/traffic/controller"
)

// Rows are a DestinationRule's distribute entries: from locality → to
// locality → weight (percent).
type Rows map[string]map[string]uint32

// Rule reads the rows artt-traffic wrote for a component (nil when it
// wrote none, or left the component to the balancer), into the user's rule
// or, where the run has none, its own.
func (a *Active) Rule(ctx context.Context, component string) (Rows, error) {
	dr, err := a.rule(ctx, component)
	if dr == nil || err != nil {
		return nil, err
	}
	return rowsOf(dr), nil
}

// ByNode is the rows by node name (nil for none).
func (r Rows) ByNode() map[string]map[string]uint32 {
	if r == nil {
		return nil
	}
	rows := make(map[string]map[string]uint32, len(r))
	for from, to := range r {
		row := make(map[string]uint32, len(to))
		for loc, w := range to {
			row[NodeOfLocality(loc)] = w
		}
		rows[NodeOfLocality(from)] = row
	}
	return rows
}

// rowsOf is a rule's distribute rows (nil when locality load balancing is
// off or has none).
func rowsOf(dr *networkingv1.DestinationRule) Rows {
	lb := dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetLocalityLbSetting()
	if lb == nil || (lb.GetEnabled() != nil && !lb.GetEnabled().GetValue()) || len(lb.GetDistribute()) == 0 {
		return nil
	}
	rows := Rows{}
	for _, d := range lb.GetDistribute() {
		rows[d.GetFrom()] = d.GetTo()
	}
	return rows
}

// Balancer is the name of the rule in force for a component and the
// balancer it names ("" for none: gRPC's round robin), whoever wrote it.
func (a *Active) Balancer(ctx context.Context, component string) (rule, simple string, err error) {
	dr, err := a.rule(ctx, component)
	if dr == nil || err != nil {
		return "", "", err
	}
	if s := dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetSimple(); s != networkingapi.LoadBalancerSettings_UNSPECIFIED {
		simple = s.String()
	}
	return dr.Name, simple, nil
}

// rule is the user's DestinationRule for a component or, where the run has
// none, artt-traffic's own (nil when neither exists).
func (a *Active) rule(ctx context.Context, component string) (*networkingv1.DestinationRule, error) {
	rules := a.H.Cluster.Istio.NetworkingV1().DestinationRules(a.Namespace)
	dr, err := rules.Get(ctx, backend.ObjectName(component), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		dr, err = rules.Get(ctx, controller.RuleName(backend.ObjectName(component)), metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return dr, err
}

// Locality is the Istio locality of a scenario node.
func Locality(node string) string { return locality(node) }

// Received is, for each pod of a component still running, the requests it
// has received so far by the caller's node, read from the pod's own
// counter.
func (a *Active) Received(ctx context.Context, component string) (map[string]map[string]float64, error) {
	got, err := a.podCounters(ctx, component)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]float64, len(got))
	for pod, c := range got {
		out[pod] = c.received
	}
	return out, nil
}

// podCounters is what a pod's own /metrics says so far: the requests it
// received by the caller's node, the CPU seconds spent on their work, and
// those of its server beside the work.
type podCounters struct {
	received     map[string]float64
	work, server float64
	// firstArrival is when its first request arrived (zero before).
	firstArrival time.Time
}

// podCounters scrapes each pod of a component still running.
func (a *Active) podCounters(ctx context.Context, component string) (map[string]podCounters, error) {
	out := map[string]podCounters{}
	pods, err := a.pods()
	if err != nil {
		return nil, err
	}
	for _, pod := range pods {
		// A pod still starting may not listen yet, and one being stopped
		// no longer does: neither has requests to count.
		if pod.Component != component || pod.starting() || !pod.Gone.IsZero() || !a.H.kubelet.running(a.Namespace, pod.Name) {
			continue
		}
		got, err := scrapeCounters(ctx, fmt.Sprintf("http://%s:%d/metrics", podIP(a.index, pod.Index), backend.MetricsPort))
		if err != nil {
			return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
		}
		out[pod.Name] = got
	}
	return out, nil
}

func scrapeCounters(ctx context.Context, url string) (podCounters, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return podCounters{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return podCounters{}, err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return podCounters{}, err
	}
	out := podCounters{received: map[string]float64{}}
	for _, m := range families["artt_live_requests_received_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "source_node" {
				out.received[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	for _, m := range families[backend.WorkCounter].GetMetric() {
		out.work += m.GetCounter().GetValue()
	}
	for _, m := range families[backend.ServerCounter].GetMetric() {
		out.server += m.GetCounter().GetValue()
	}
	for _, m := range families[backend.FirstArrivalGauge].GetMetric() {
		if at := backend.FirstArrivalAt(m.GetGauge().GetValue()); !at.IsZero() {
			out.firstArrival = at
		}
	}
	return out, nil
}

// ReceivedByPod is, for each pod of a component still running, the
// requests it has received so far from every node.
func (a *Active) ReceivedByPod(ctx context.Context, component string) (map[string]float64, error) {
	got, err := a.podCounters(ctx, component)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(got))
	for pod, c := range got {
		out[pod] = c.receivedTotal()
	}
	return out, nil
}

// receivedTotal is the requests a pod received from every node.
func (c podCounters) receivedTotal() float64 {
	total := 0.0
	for _, n := range c.received {
		total += n
	}
	return total
}

// PodNode is the node a pod of the run runs on.
func (a *Active) PodNode(pod string) string {
	pods, _ := a.pods()
	for _, p := range pods {
		if p.Name == pod {
			return p.Node
		}
	}
	return ""
}

// DeletePod deletes a pod's object, as a user or a scale-down does, and
// keeps its process serving for grace, as the kubelet does while a
// deleted pod terminates; then stops it.
func (a *Active) DeletePod(ctx context.Context, pod string, grace time.Duration) error {
	return a.H.kubelet.deletePod(ctx, a.Namespace, pod, grace)
}

// RestartIstiod stops istiod and starts it again on the same addresses.
func (a *Active) RestartIstiod(ctx context.Context) error {
	a.H.Cluster.Istiod.Stop()
	return a.H.Cluster.Istiod.Start(ctx)
}

// Counts are the load generator's counts so far.
func (a *Active) Counts() loadgen.Counts {
	if c := a.counts.Load(); c != nil {
		return *c
	}
	return loadgen.Counts{}
}

// ChangeLeader stops artt-traffic's leader as a crash would, starts a
// replacement, and returns how long no replica led (about the lease).
func (a *Active) ChangeLeader(ctx context.Context) (time.Duration, error) {
	if a.traffic == nil {
		return 0, fmt.Errorf("run %s has no artt-traffic", a.Run.Label())
	}
	return a.traffic.changeLeader(ctx)
}

// KillPod kills a pod's process outright, as a crash or the OOM killer
// does, and leaves its object Ready: no kubelet notices before its probe
// would. Requests in flight on it fail; gRPC's clients see the connection
// go and stop picking it.
func (a *Active) KillPod(pod string) error { return a.H.kubelet.kill(a.Namespace, pod) }

// NodeCPU is the cores a node's running pods used together over the next
// window, from their cgroups' counters.
func (a *Active) NodeCPU(node string, window time.Duration) (float64, error) {
	read := func() (float64, error) {
		total := 0.0
		pods, err := a.pods()
		if err != nil {
			return 0, err
		}
		for _, p := range pods {
			if p.Node != node || !a.H.kubelet.running(a.Namespace, p.Name) {
				continue
			}
			v, err := a.H.kubelet.cpuSeconds(a.Namespace, p.Name)
			if err != nil {
				return 0, err
			}
			total += v
		}
		return total, nil
	}
	before, err := read()
	if err != nil {
		return 0, err
	}
	time.Sleep(window)
	after, err := read()
	return (after - before) / window.Seconds(), err
}

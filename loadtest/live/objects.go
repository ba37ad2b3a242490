package live

import (
	"context"
	"fmt"
	"math"
	"slices"

	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/traffic/controller"
)

// ingressWorkload is the gateway the load generator poses as: a
// Deployment of one pod on the ingress node, so istiod knows the
// generator's locality and artt-traffic sees it call the entry, as the
// lab's pseudo component of the same name.
const ingressWorkload = "ingress"

// locality is a node's Istio locality: one per node, as artt-traffic
// writes its rules.
func locality(node string) string { return "live/live/" + node }

// createNodes creates the scenario's nodes, Ready, with one locality each.
func createNodes(ctx context.Context, c *Cluster, p *Plan) error {
	for _, n := range p.Scenario.Cluster.Nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{
			controller.RegionLabel: "live", controller.ZoneLabel: "live", controller.SubzoneLabel: n.Name,
		}}}
		node.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(int64(n.Cores*1000), resource.DecimalSI)}
		if err := c.Client.Create(ctx, node); err != nil {
			return fmt.Errorf("node %s: %w", n.Name, err)
		}
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
		if err := c.Client.Status().Update(ctx, node); err != nil {
			return fmt.Errorf("node %s status: %w", n.Name, err)
		}
	}
	return nil
}

// createWorkloads creates a run's namespace, a Deployment and a Service
// per component and the gateway, and for each component the user's
// DestinationRule with the run's balancer inside a locality (none for
// cswrr, whose clients do not ask istiod, nor where artt-traffic writes the
// policy into its own rule: balancer). managed opts the Deployments
// in to artt-traffic; the components in scaled have their pods made by
// their Deployment's ReplicaSet (for KEDA to scale), the others are the
// harness's own pods.
func createWorkloads(ctx context.Context, c *Cluster, p *Plan, ns string, lb networkingapi.LoadBalancerSettings_SimpleLB, managed bool, scaled []ScaledSpec) error {
	if err := c.createNamespace(ctx, ns); err != nil {
		return err
	}
	if err := createWorkload(ctx, c, ns, ingressWorkload, nil, managed, lb); err != nil {
		return err
	}
	for _, comp := range p.Scenario.Application.Components {
		var template *scenario.Component
		if slices.ContainsFunc(scaled, func(s ScaledSpec) bool { return s.Component == comp.Name }) {
			template = &comp
		}
		if err := createWorkload(ctx, c, ns, backend.ObjectName(comp.Name), template, managed, lb); err != nil {
			return err
		}
	}
	return nil
}

// createWorkload creates one workload's Deployment, Service and, but for
// the gateway and cswrr, DestinationRule.
func createWorkload(ctx context.Context, c *Cluster, ns, w string, scaled *scenario.Component, managed bool, lb networkingapi.LoadBalancerSettings_SimpleLB) error {
	if err := createDeployment(ctx, c, ns, w, managed, scaled); err != nil {
		return err
	}
	if err := createService(ctx, c, ns, w); err != nil {
		return err
	}
	if w == ingressWorkload || lb == networkingapi.LoadBalancerSettings_UNSPECIFIED {
		return nil
	}
	dr := &networkingv1.DestinationRule{
		ObjectMeta: metav1.ObjectMeta{Name: w, Namespace: ns},
		Spec: networkingapi.DestinationRule{Host: w, TrafficPolicy: &networkingapi.TrafficPolicy{
			LoadBalancer: &networkingapi.LoadBalancerSettings{LbPolicy: &networkingapi.LoadBalancerSettings_Simple{Simple: lb}},
		}},
	}
	if _, err := c.Istio.NetworkingV1().DestinationRules(ns).Create(ctx, dr, metav1.CreateOptions{FieldManager: "live-user"}); err != nil {
		return fmt.Errorf("destination rule %s/%s: %w", ns, w, err)
	}
	return nil
}

// createDeployment creates a workload's Deployment. A scaled component's
// starts at its replicas, and kube-controller-manager's ReplicaSet makes
// its pods from the template. Any other is paused: a paused Deployment
// gets no ReplicaSet, so the pods stay the harness's, placed as the
// scenario pins them.
func createDeployment(ctx context.Context, c *Cluster, ns, name string, managed bool, scaled *scenario.Component) error {
	labels := map[string]string{"app": name}
	container := corev1.Container{Name: "app", Image: "artt-live", Ports: []corev1.ContainerPort{{ContainerPort: backend.Port, Name: "grpc-call"}}}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Paused:   scaled == nil,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{container}}},
		},
	}
	if scaled != nil {
		replicas := int32(scaled.Replicas)
		dep.Spec.Replicas = &replicas
		dep.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{Limits: cores(scaled.CPULimit), Requests: cores(scaled.CPURequest)}
		// As a pod's grace period, the time a scaled-down pod has to
		// finish its requests (the harness stops it then).
		grace := int64(1)
		dep.Spec.Template.Spec.TerminationGracePeriodSeconds = &grace
	}
	if managed {
		dep.Labels = map[string]string{controller.ManagedLabel: "true"}
	}
	if err := c.Client.Create(ctx, dep); err != nil {
		return fmt.Errorf("deployment %s/%s: %w", ns, name, err)
	}
	return nil
}

// cores is a CPU amount as a resource list.
func cores(v float64) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(int64(math.Round(v*1000)), resource.DecimalSI)}
}

// createService creates a component's Service; its port's name starts
// with grpc-, which tells istiod the protocol.
func createService(ctx context.Context, c *Cluster, ns, name string) error {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{
			Name: "grpc-call", Port: backend.Port, TargetPort: intstr.FromInt32(backend.Port),
		}}},
	}
	if err := c.Client.Create(ctx, svc); err != nil {
		return fmt.Errorf("service %s/%s: %w", ns, name, err)
	}
	return nil
}

// createPod creates a pod bound to its node, with its CPU limit and
// request, not yet running.
func createPod(ctx context.Context, c *Cluster, s podStart) (*corev1.Pod, error) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: s.ns, Labels: map[string]string{"app": s.workload}},
		Spec: corev1.PodSpec{NodeName: s.node, Containers: []corev1.Container{{
			Name: "app", Image: "artt-live", Ports: []corev1.ContainerPort{{ContainerPort: backend.Port, Name: "grpc-call"}},
			Resources: corev1.ResourceRequirements{Limits: cores(s.limit), Requests: cores(s.request)},
		}}},
	}
	if err := c.Client.Create(ctx, pod); err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", s.ns, s.name, err)
	}
	return pod, nil
}

// markRunning sets a pod Running and Ready on its address, as a kubelet
// does once the container's readiness probe passes. It reads the pod
// first: a scheduler's binding or a controller may have changed it.
func markRunning(ctx context.Context, c *Cluster, pod *corev1.Pod, ip string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			return err
		}
		now := metav1.Now()
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, HostIP: ip, StartTime: &now,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			}}
		return c.Client.Status().Update(ctx, pod)
	})
}

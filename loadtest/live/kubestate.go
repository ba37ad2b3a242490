package live

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kubeState exports the two kube-state-metrics series artt-scaler's
// default queries read, from the API's pods at each scrape, under
// kube-state-metrics' names and labels: kube_pod_container_resource_requests
// (resource cpu, unit core) and kube_pod_status_ready (condition true,
// false and unknown, 1 for the pod's; none before the pod has the
// condition). kube-state-metrics itself is not served by the module proxy
// this machine reaches, so it cannot be built here.
type kubeState struct {
	k8s      client.Client
	requests *prometheus.Desc
	ready    *prometheus.Desc
}

func newKubeState(k8s client.Client) *kubeState {
	return &kubeState{k8s: k8s,
		requests: prometheus.NewDesc("kube_pod_container_resource_requests", "The number of requested request resource by a container.",
			[]string{"namespace", "pod", "uid", "container", "node", "resource", "unit"}, nil),
		ready: prometheus.NewDesc("kube_pod_status_ready", "Describes whether the pod is ready to serve requests.",
			[]string{"namespace", "pod", "uid", "condition"}, nil),
	}
}

func (k *kubeState) Describe(ch chan<- *prometheus.Desc) { ch <- k.requests; ch <- k.ready }

// readyConditions are kube_pod_status_ready's condition label values.
var readyConditions = map[corev1.ConditionStatus]string{corev1.ConditionTrue: "true", corev1.ConditionFalse: "false", corev1.ConditionUnknown: "unknown"}

// Collect lists the pods; a failed list exports nothing, as a scrape of a
// kube-state-metrics that cannot reach the API would.
func (k *kubeState) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var pods corev1.PodList
	if err := k.k8s.List(ctx, &pods); err != nil {
		return
	}
	for _, p := range pods.Items {
		uid := string(p.UID)
		for _, c := range p.Spec.Containers {
			if cpu, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
				ch <- prometheus.MustNewConstMetric(k.requests, prometheus.GaugeValue, cpu.AsApproximateFloat64(), p.Namespace, p.Name, uid, c.Name, p.Spec.NodeName, "cpu", "core")
			}
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type != corev1.PodReady {
				continue
			}
			for status, name := range readyConditions {
				v := 0.0
				if cond.Status == status {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(k.ready, prometheus.GaugeValue, v, p.Namespace, p.Name, uid, name)
			}
		}
	}
}

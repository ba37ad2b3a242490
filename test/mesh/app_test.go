package mesh_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/traffic/controller"
)

// appNamespace holds the application whose backend gets ARTT's table;
// handoverNamespace one whose backend ARTT leaves to Envoy.
const (
	appNamespace      = "mesh"
	handoverNamespace = "handover"
)

// Each application has nodes of its own, so each has its own network.
var (
	appNodes      = []string{"n1", "n2", "n3"}
	handoverNodes = []string{"h1", "h2", "h3"}
	allNodes      = append(append([]string{}, appNodes...), handoverNodes...)
)

func nodesOf(ns string) []string {
	if ns == handoverNamespace {
		return handoverNodes
	}
	return appNodes
}

// locality is Istio's region/zone/subzone of a test node: one locality per
// node, as artt-traffic writes them.
func locality(node string) string { return "r1/z1/" + node }

// podIP gives each pod of each namespace its own address.
func podIP(ns, app string, i int) string {
	a, b := 1, 1
	if ns == handoverNamespace {
		a = 2
	}
	if app == "backend" {
		b = 2
	}
	return fmt.Sprintf("10.%d.%d.%d", a, b, i+1)
}

// oneWayMs is the test network: n2–n3 20 ms (a slow link the table
// avoids), 0.4 ms elsewhere.
func oneWayMs(a, b string) float64 {
	if (a == "n2" && b == "n3") || (a == "n3" && b == "n2") {
		return 20
	}
	return 0.4
}

// appSeries is the exporter's series for both applications: probes
// between the nodes; per pod CPU and requests; frontend's calls to
// backend. In appNamespace the backend on n3 needs twice the CPU per
// request (4 ms against 2); in handoverNamespace every backend pod runs at
// 75% of its core, where a static split adds more queueing than fast
// links save.
func appSeries(slowed map[string]float64) []promtest.Series {
	var s []promtest.Series
	for _, a := range allNodes {
		for _, b := range allNodes {
			if a != b {
				s = append(s, promtest.Series{Name: "probe_duration_seconds", Labels: fmt.Sprintf(`source_node=%q,target_node=%q`, a, b), Value: 2 * oneWayMs(a, b) / 1000})
			}
		}
	}
	for _, ns := range []string{appNamespace, handoverNamespace} {
		for _, n := range nodesOf(ns) {
			backendRPS, cost := 50.0, 0.002
			if n == "n3" {
				cost = 0.004
			}
			if ns == handoverNamespace {
				backendRPS, cost = 60, 0.0125
			}
			for _, w := range []struct {
				name      string
				rps, cost float64
			}{{"frontend", 50, 0.001}, {"backend", backendRPS, cost}} {
				pod := w.name + "-" + n
				factor := 1.0
				if f, ok := slowed[ns+"/"+pod]; ok {
					factor = f
				}
				s = append(s,
					promtest.Series{Name: "container_cpu_usage_seconds_total", Labels: fmt.Sprintf(`namespace=%q,pod=%q,container="app"`, ns, pod), Rate: w.rps * w.cost * factor},
					promtest.Series{Name: "istio_requests_total", Labels: fmt.Sprintf(`reporter="destination",namespace=%q,pod=%q,response_code="200"`, ns, pod), Rate: w.rps},
				)
			}
		}
		s = append(s, promtest.Series{Name: "istio_requests_total", Labels: fmt.Sprintf(
			`reporter="source",namespace=%q,pod="frontend",source_workload="frontend",source_workload_namespace=%q,destination_workload="backend",destination_workload_namespace=%q,response_code="200"`, ns, ns, ns), Rate: 150})
	}
	return s
}

// createNodes creates the nodes with their localities.
func createNodes(t *testing.T) {
	t.Helper()
	for _, n := range allNodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{
			"topology.kubernetes.io/region": "r1", "topology.kubernetes.io/zone": "z1", "topology.istio.io/subzone": n,
		}}}
		if err := k8s.Create(testScope, node); err != nil {
			t.Fatal(err)
		}
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
		if err := k8s.Status().Update(testScope, node); err != nil {
			t.Fatal(err)
		}
	}
}

// createApp creates ns's frontend and backend: managed Deployments, a
// ready pod of each per node (no scheduler or kubelet here: bound and
// marked ready by hand), Services, and the backend's EndpointSlice (no
// endpoint controller either), each endpoint pointing at its pod as
// istiod requires.
func createApp(t *testing.T, ns string) {
	t.Helper()
	for _, app := range []string{"frontend", "backend"} {
		labels := map[string]string{"app": app}
		dep := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: ns, Labels: map[string]string{controller.ManagedLabel: "true"}},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example/app"}}}},
			},
		}
		if err := k8s.Create(testScope, dep); err != nil {
			t.Fatal(err)
		}
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: ns},
			Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}},
		}
		if err := k8s.Create(testScope, svc); err != nil {
			t.Fatal(err)
		}
		var endpoints []discoveryv1.Endpoint
		for i, n := range nodesOf(ns) {
			name := app + "-" + n
			ip := podIP(ns, app, i)
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
				Spec: corev1.PodSpec{NodeName: n, Containers: []corev1.Container{{
					Name: "app", Image: "example/app", Ports: []corev1.ContainerPort{{ContainerPort: 8080, Name: "http"}},
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
				}}},
			}
			if err := k8s.Create(testScope, pod); err != nil {
				t.Fatal(err)
			}
			pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, HostIP: "192.168.0.1",
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}}
			if err := k8s.Status().Update(testScope, pod); err != nil {
				t.Fatal(err)
			}
			ready := true
			node := n
			endpoints = append(endpoints, discoveryv1.Endpoint{
				Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}, NodeName: &node,
				TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: name, Namespace: ns, UID: pod.UID},
			})
		}
		port, proto, portName := int32(8080), corev1.ProtocolTCP, "http"
		slice := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: app + "-slice", Namespace: ns, Labels: map[string]string{discoveryv1.LabelServiceName: app}},
			AddressType: discoveryv1.AddressTypeIPv4, Endpoints: endpoints,
			Ports: []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
		}
		if err := k8s.Create(testScope, slice); err != nil {
			t.Fatal(err)
		}
	}
}

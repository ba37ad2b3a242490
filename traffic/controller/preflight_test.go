package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	"google.golang.org/protobuf/types/known/wrapperspb"
	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/artt-dev/artt/internal/promtest"
)

// The preflight prints one line per problem, each naming the object, what
// is wrong and the remedy, and passes a namespace set up as docs/install.md
// says. One namespace holds each problem of a cluster not set up: a node
// without a subzone, a namespace without sidecars, a Deployment without its
// Service, a Service whose trafficDistribution ARTT overrides, a user's
// rule whose zoneAwareLbSetting would override ARTT's rows, a Deployment
// Prometheus has no series for, and an ambient namespace without a
// waypoint; an account without artt-traffic's RBAC is told what it lacks.
func TestPreflightNamesEachProblemAndPassesAReadyNamespace(t *testing.T) {
	needCluster(t)
	ensureNodes(t)
	const ready, bad, ambient, injected = "preflight-ok", "preflight-bad", "preflight-ambient", "preflight-injected"
	createNamespace(t, ready, map[string]string{injectionLabel: injectionEnabled})
	createApp(t, ready)
	createNamespace(t, bad, nil)
	createApp(t, bad)
	createNamespace(t, ambient, map[string]string{dataplaneModeKey: ambientMode})
	createApp(t, ambient)
	// Injection asked per pod: no namespace label, every pod injected.
	createNamespace(t, injected, nil)
	createApp(t, injected)
	var list corev1.PodList
	if err := k8s.List(testScope, &list, client.InNamespace(injected)); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		p := &list.Items[i]
		p.Annotations = map[string]string{sidecarStatus: `{"containers":["istio-proxy"]}`}
		if err := k8s.Update(testScope, p); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { // later tests' controllers see only their own applications
		for _, ns := range []string{ready, bad, ambient, injected} {
			_ = k8s.DeleteAllOf(testScope, &appsv1.Deployment{}, client.InNamespace(ns))
			_ = k8s.DeleteAllOf(testScope, &corev1.Pod{}, client.InNamespace(ns))
		}
	})
	for _, ns := range []string{ready, ambient} {
		createService(t, ns, "frontend", nil)
		createService(t, ns, "backend", nil)
	}
	prefer := corev1.ServiceTrafficDistributionPreferSameZone
	createService(t, bad, "frontend", &prefer)
	zoneAware := &networkingv1.DestinationRule{
		ObjectMeta: metav1.ObjectMeta{Name: "frontend-zones", Namespace: bad},
		Spec: networkingapi.DestinationRule{Host: "frontend", TrafficPolicy: &networkingapi.TrafficPolicy{
			LoadBalancer: &networkingapi.LoadBalancerSettings{ZoneAwareLbSetting: &networkingapi.ZoneAwareLoadBalancerSetting{Enabled: wrapperspb.Bool(true)}},
		}},
	}
	if _, err := ic.NetworkingV1().DestinationRules(bad).Create(testScope, zoneAware, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ic.NetworkingV1().DestinationRules(bad).Delete(testScope, zoneAware.Name, metav1.DeleteOptions{})
	})
	// orphan runs on n1 and on n4, a node without a subzone; Prometheus has
	// no series of it.
	n4 := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n4", Labels: map[string]string{RegionLabel: "r1", ZoneLabel: "z1"}}}
	if err := k8s.Create(testScope, n4); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(testScope, n4) })
	if err := k8s.Create(testScope, managedDeployment(bad, "orphan")); err != nil {
		t.Fatal(err)
	}
	createService(t, bad, "orphan", nil)
	createPod(t, bad, "orphan-n1", "orphan", "n1")
	createPod(t, bad, "orphan-n4", "orphan", "n4")
	exporter.Set(append(clusterSeries(nil, append(slices.Clone(testNamespaces), ready, bad, ambient)...), latencySeries(ready)...))
	defer exporter.Set(clusterSeries(nil, testNamespaces...))
	if err := prom.WaitForSamples(`istio_request_duration_milliseconds_bucket{namespace="`+ready+`"}`, 3, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	pc, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	col := &Collector{Client: pc, Queries: testQueries(), Timeout: 5 * time.Second}

	problems, err := Preflight(testScope, k8s, col, DataPlaneEnvoy, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string][]string{}
	for _, p := range problems {
		for _, ns := range []string{ready, bad, ambient, injected, "n4"} {
			if strings.Contains(p.Object, ns) {
				lines[ns] = append(lines[ns], p.String())
			}
		}
	}
	for _, l := range lines[injected] {
		if strings.Contains(l, "namespace "+injected) {
			t.Errorf("a namespace whose every pod has a sidecar is said to have none: %s", l)
		}
	}
	if len(lines[ready]) > 0 {
		t.Errorf("a namespace set up as docs/install.md says has problems:\n%s", strings.Join(lines[ready], "\n"))
	}
	want := map[string][]string{
		"n4": {"error: node n4: it runs managed pods but has no [topology.istio.io/subzone], so ARTT's rules send it no traffic; label it (topology.istio.io/subzone=n4) or run artt-traffic with --label-nodes"},
		bad: {
			"error: namespace preflight-bad: it has no sidecar injection (istio-injection=enabled or istio.io/rev), so no proxy carries ARTT's weights; label it istio-injection=enabled and restart its pods, or run artt-traffic with --data-plane=grpc for proxyless gRPC clients",
			"error: deployment preflight-bad/backend: no Service backend in its namespace, the host ARTT's rule is written for; create the Service, or name its host with the annotation traffic.artt.dev/host",
			"warning: service preflight-bad/frontend: its trafficDistribution PreferSameZone is overridden by the localityLbSetting ARTT writes; remove trafficDistribution, or leave the Deployment to it by removing traffic.artt.dev/managed",
			"error: destinationrule preflight-bad/frontend-zones: its zoneAwareLbSetting takes precedence over the localityLbSetting ARTT writes into it for preflight-bad/frontend, and Istio's validation refuses a rule with both; remove zoneAwareLbSetting, or leave the Deployment to it by removing traffic.artt.dev/managed",
			"error: deployment preflight-bad/orphan: the CPU query returns nothing for 2 of its running pods (orphan-n1); scrape cAdvisor with namespace and pod labels (docs/traffic.md, \"Measurements\")",
			"error: deployment preflight-bad/orphan: the requests query returns nothing for 2 of its running pods (orphan-n1); scrape the sidecars' istio_requests_total with namespace and pod labels",
		},
		ambient: {"error: namespace preflight-ambient: it is in Istio's ambient mode without a waypoint, where ztunnel ignores a rule's localityLbSetting; give it a waypoint (istioctl waypoint apply -n preflight-ambient --enroll-namespace) or use sidecars"},
	}
	for ns, lines := range lines {
		for _, w := range want[ns] {
			if !slices.Contains(lines, w) {
				t.Errorf("%s: the preflight does not say\n  %s\nit says:\n  %s", ns, w, strings.Join(lines, "\n  "))
			}
		}
	}
	for ns := range want {
		if len(lines[ns]) == 0 {
			t.Errorf("%s: the preflight says nothing of it", ns)
		}
	}

	nobody, err := testEnv.AddUser(envtest.User{Name: "preflight-nobody"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	limited, err := client.New(nobody.Config(), client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	problems, err = Preflight(testScope, limited, col, DataPlaneEnvoy, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != len(permissions) || problems[0].String() != "error: rbac: this account may not list deployments (group apps); apply deploy/traffic/rbac.yaml (or the chart) for artt-traffic's ServiceAccount" {
		t.Errorf("an account without RBAC: %d problems, want one per permission (%d), the first naming list deployments: %v", len(problems), len(permissions), problems)
	}
}

// latencySeries are the sidecars' latency histograms of namespace ns's
// pods: 90% of their 50 requests a second within 10 ms.
func latencySeries(ns string) []promtest.Series {
	var s []promtest.Series
	for _, w := range []string{"frontend", "backend"} {
		for _, n := range testNodes {
			for le, rate := range map[string]float64{"10": 45, "+Inf": 50} {
				s = append(s, promtest.Series{Name: "istio_request_duration_milliseconds_bucket",
					Labels: fmt.Sprintf(`reporter="destination",namespace=%q,pod="%s-%s",le=%q`, ns, w, n, le), Rate: rate})
			}
		}
	}
	return s
}

func createNamespace(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	if err := k8s.Create(testScope, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func createService(t *testing.T, ns, name string, distribution *string) {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Port: 8080}},
			TrafficDistribution: distribution},
	}
	if err := k8s.Create(testScope, svc); err != nil {
		t.Fatal(err)
	}
}

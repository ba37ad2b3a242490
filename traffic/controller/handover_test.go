package controller

import (
	"testing"

	"google.golang.org/protobuf/types/known/wrapperspb"
	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/traffic/istio"
)

// A component left to Envoy gets locality load balancing switched off in
// the user's own rule, by server-side apply: ARTT's weights disappear, the
// user's fields stay, and a later table brings the weights back.
func TestLeavingToEnvoySwitchesLocalityOff(t *testing.T) {
	needCluster(t)
	const ns = "envoy"
	if err := k8s.Create(testScope, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	user := &networkingv1.DestinationRule{
		ObjectMeta: metav1.ObjectMeta{Name: "backend-user", Namespace: ns},
		Spec: networkingapi.DestinationRule{
			Host: "backend",
			TrafficPolicy: &networkingapi.TrafficPolicy{
				ConnectionPool: &networkingapi.ConnectionPoolSettings{Tcp: &networkingapi.ConnectionPoolSettings_TCPSettings{MaxConnections: 100}},
				// With outlier detection, Istio would turn locality failover
				// on by itself if ARTT merely dropped its setting.
				OutlierDetection: &networkingapi.OutlierDetection{Consecutive_5XxErrors: wrapperspb.UInt32(5)},
			},
		},
	}
	if _, err := ic.NetworkingV1().DestinationRules(ns).Create(testScope, user, metav1.CreateOptions{FieldManager: "platform-team"}); err != nil {
		t.Fatal(err)
	}
	w := &writer{istio: ic, applied: map[string]string{}}
	comp := component{name: ns + "/backend", namespace: ns, workload: "backend", host: "backend." + ns + ".svc.cluster.local"}
	tgt := target{namespace: ns, name: "backend-user"}
	table := []istio.Distribute{{From: loc("n1"), To: map[string]uint32{loc("n1"): 70, loc("n2"): 30}}}
	check := func(step string, wantEnabled bool, wantFrom int) {
		t.Helper()
		dr, err := getRule(ns, "backend-user")
		if err != nil {
			t.Fatal(err)
		}
		lb := dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetLocalityLbSetting()
		if lb.GetEnabled() == nil || lb.GetEnabled().GetValue() != wantEnabled || len(lb.GetDistribute()) != wantFrom {
			t.Errorf("%s: localityLbSetting %v; want enabled %v with %d distribute entries", step, lb, wantEnabled, wantFrom)
		}
		if dr.Spec.GetTrafficPolicy().GetConnectionPool().GetTcp().GetMaxConnections() != 100 || dr.Spec.GetTrafficPolicy().GetOutlierDetection() == nil {
			t.Errorf("%s: the user's fields changed: %v", step, dr.Spec.GetTrafficPolicy())
		}
	}
	for _, step := range []struct {
		name    string
		ds      []istio.Distribute
		enabled bool
		want    writeResult
	}{
		{"table", table, true, written},
		{"left to Envoy", nil, false, written},
		{"left to Envoy again", nil, false, unchanged},
		{"table again", table, true, written},
	} {
		res, err := w.write(testScope, tgt, comp, step.ds, step.enabled, "", false)
		if err != nil || res != step.want {
			t.Fatalf("%s: %v, %v; want %v", step.name, res, err, step.want)
		}
		check(step.name, step.enabled, len(step.ds))
	}
}

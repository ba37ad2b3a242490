package controller

import (
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"
	networkingapi "istio.io/api/networking/v1alpha3"
	applyv1 "istio.io/client-go/pkg/applyconfiguration/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A user edits ARTT's own DestinationRule while artt-traffic runs. A field
// ARTT does not own (a connection pool) survives ARTT's next writes. When
// the user takes over the weights themselves (a forced apply by another
// field manager), ARTT's next write is a conflict, reported and never
// forced: the user's weights stay.
func TestUserEditsMidRun(t *testing.T) {
	needCluster(t)
	createApp(t, "midrun")
	in := start(t, instanceOptions{})
	waitFor(t, 20*time.Second, "ARTT's rule written", func() bool {
		dr, err := getRule("midrun", "artt-backend")
		return err == nil && len(distribution(dr)) == 3
	})

	// The platform team adds a connection pool to ARTT's rule.
	pool := applyv1.DestinationRule("artt-backend", "midrun")
	pool.Spec = &networkingapi.DestinationRule{TrafficPolicy: &networkingapi.TrafficPolicy{
		ConnectionPool: &networkingapi.ConnectionPoolSettings{Tcp: &networkingapi.ConnectionPoolSettings_TCPSettings{MaxConnections: 64}},
	}}
	if _, err := ic.NetworkingV1().DestinationRules("midrun").Apply(testScope, pool, metav1.ApplyOptions{FieldManager: "platform-team"}); err != nil {
		t.Fatal(err)
	}
	// Load moves (n2's backend needs three times the CPU): ARTT rewrites.
	before, _ := getRule("midrun", "artt-backend")
	exporter.Set(clusterSeries(map[string]float64{"midrun/backend-n2": 3}, testNamespaces...))
	defer exporter.Set(clusterSeries(nil, testNamespaces...))
	waitFor(t, 30*time.Second, "ARTT's new weights", func() bool {
		dr, err := getRule("midrun", "artt-backend")
		return err == nil && !reflect.DeepEqual(distribution(dr), distribution(before))
	})
	dr, err := getRule("midrun", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}
	if got := dr.Spec.GetTrafficPolicy().GetConnectionPool().GetTcp().GetMaxConnections(); got != 64 {
		t.Errorf("the user's connection pool is %d after ARTT's write, want 64", got)
	}

	// The platform team forces its own weights (its apply keeps its pool:
	// a field manager's apply without a field it owned removes the field).
	mine := map[string]uint32{loc("n1"): 100}
	takeover := applyv1.DestinationRule("artt-backend", "midrun")
	takeover.Spec = &networkingapi.DestinationRule{TrafficPolicy: &networkingapi.TrafficPolicy{
		ConnectionPool: pool.Spec.TrafficPolicy.ConnectionPool,
		LoadBalancer: &networkingapi.LoadBalancerSettings{
			LocalityLbSetting: &networkingapi.LocalityLoadBalancerSetting{Enabled: wrapperspb.Bool(true), Distribute: []*networkingapi.LocalityLoadBalancerSetting_Distribute{
				{From: loc("n1"), To: mine},
			}},
		}}}
	if _, err := ic.NetworkingV1().DestinationRules("midrun").Apply(testScope, takeover, metav1.ApplyOptions{FieldManager: "platform-team", Force: true}); err != nil {
		t.Fatal(err)
	}
	conflicts := counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "conflict"})
	// Load moves back: ARTT wants to write again, and must not force.
	exporter.Set(clusterSeries(map[string]float64{"midrun/backend-n3": 3}, testNamespaces...))
	waitFor(t, 30*time.Second, "the conflict reported", func() bool {
		return counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "conflict"}) > conflicts
	})
	dr, err = getRule("midrun", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}
	if d := distribution(dr); len(d) != 1 || !reflect.DeepEqual(d[loc("n1")], mine) {
		t.Errorf("the platform team's weights were overwritten: %v", d)
	}
	if got := dr.Spec.GetTrafficPolicy().GetConnectionPool().GetTcp().GetMaxConnections(); got != 64 {
		t.Errorf("the connection pool is %d, want 64", got)
	}
}

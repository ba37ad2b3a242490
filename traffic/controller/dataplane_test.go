package controller

import (
	"testing"
	"time"

	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/istio"
)

// On gRPC, a table is carried only under ROUND_ROBIN, and a rule without a
// policy is round robin. Where the user's rule leaves loadBalancer.simple
// unset, ARTT writes it by server-side apply, ROUND_ROBIN with the table
// and LEAST_REQUEST without, and never reads its own policy as the user's:
// the callers' own pick stays least-request. Where the user set a policy,
// ARTT writes none beside it.
func TestOnGRPCTheTableCarriesItsOwnRoundRobin(t *testing.T) {
	needCluster(t)
	const ns = "grpc"
	if err := k8s.Create(testScope, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	userRuleFor := func(name, host string, simple networkingapi.LoadBalancerSettings_SimpleLB) {
		t.Helper()
		tp := &networkingapi.TrafficPolicy{ConnectionPool: &networkingapi.ConnectionPoolSettings{Tcp: &networkingapi.ConnectionPoolSettings_TCPSettings{MaxConnections: 100}}}
		if simple != networkingapi.LoadBalancerSettings_UNSPECIFIED {
			tp.LoadBalancer = &networkingapi.LoadBalancerSettings{LbPolicy: &networkingapi.LoadBalancerSettings_Simple{Simple: simple}}
		}
		dr := &networkingv1.DestinationRule{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: networkingapi.DestinationRule{Host: host, TrafficPolicy: tp}}
		if _, err := ic.NetworkingV1().DestinationRules(ns).Create(testScope, dr, metav1.CreateOptions{FieldManager: "platform-team"}); err != nil {
			t.Fatal(err)
		}
	}
	userRuleFor("unset-user", "unset", networkingapi.LoadBalancerSettings_UNSPECIFIED)
	userRuleFor("lr-user", "lr", networkingapi.LoadBalancerSettings_LEAST_REQUEST)
	userRuleFor("rr-user", "rr", networkingapi.LoadBalancerSettings_ROUND_ROBIN)

	// The snapshot's view of each component, from the rules as they are now.
	deployments := []appsv1.Deployment{}
	for _, name := range []string{"unset", "lr", "rr", "bare"} {
		deployments = append(deployments, appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
	}
	view := func() (map[string]component, map[string]traffic.Component) {
		t.Helper()
		drs, err := ic.NetworkingV1().DestinationRules(ns).List(testScope, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, comps := snapshot(apiState{deployments: deployments, rules: drs.Items, dataPlane: DataPlaneGRPC}, nil, time.Unix(0, 0))
		byName := map[string]traffic.Component{}
		for _, c := range s.Components {
			byName[c.Name] = c
		}
		return comps, byName
	}
	comps, snap := view()
	for name, want := range map[string]struct {
		rr, dropped bool
		pick        traffic.Pick
	}{
		"unset": {true, false, traffic.PickByQueue}, // left to ARTT
		"bare":  {true, false, traffic.PickByQueue}, // no user's rule: ARTT's own
		"lr":    {false, true, traffic.PickByQueue}, // the user's LEAST_REQUEST: gRPC drops the weights
		"rr":    {false, false, traffic.PickBlind},  // the user's ROUND_ROBIN carries them already
	} {
		c := snap[ns+"/"+name]
		if c.RoundRobinUnderTable != want.rr || c.Pick != want.pick || comps[ns+"/"+name].weightsDropped != want.dropped {
			t.Errorf("%s: RoundRobinUnderTable %v, pick %q, weights dropped %v; want %v, %q, %v", name, c.RoundRobinUnderTable, c.Pick, comps[ns+"/"+name].weightsDropped, want.rr, want.pick, want.dropped)
		}
	}

	w := &writer{istio: ic, applied: map[string]string{}}
	table := []istio.Distribute{{From: loc("n1"), To: map[string]uint32{loc("n1"): 70, loc("n2"): 30}}}
	simpleOf := func(name string) networkingapi.LoadBalancerSettings_SimpleLB {
		t.Helper()
		dr, err := getRule(ns, name)
		if err != nil {
			t.Fatal(err)
		}
		if dr.Spec.GetTrafficPolicy().GetConnectionPool().GetTcp().GetMaxConnections() != 100 {
			t.Errorf("%s: the user's connection pool changed: %v", name, dr.Spec.GetTrafficPolicy())
		}
		return dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetSimple()
	}
	tgt := target{namespace: ns, name: "unset-user"}
	for _, step := range []struct {
		name    string
		ds      []istio.Distribute
		enabled bool
		want    networkingapi.LoadBalancerSettings_SimpleLB
	}{
		{"table", table, true, networkingapi.LoadBalancerSettings_ROUND_ROBIN},
		{"lifted", nil, false, networkingapi.LoadBalancerSettings_LEAST_REQUEST},
		{"table again", table, true, networkingapi.LoadBalancerSettings_ROUND_ROBIN},
	} {
		comps, snap = view()
		if res, err := w.write(testScope, tgt, comps[ns+"/unset"], step.ds, step.enabled, "", false); err != nil || res != written {
			t.Fatalf("%s: %v, %v; want written", step.name, res, err)
		}
		if got := simpleOf("unset-user"); got != step.want {
			t.Errorf("%s: loadBalancer.simple %v; want %v", step.name, got, step.want)
		}
	}
	// ARTT's own policy in force is still not the user's.
	comps, snap = view()
	if c := snap[ns+"/unset"]; !c.RoundRobinUnderTable || c.Pick != traffic.PickByQueue {
		t.Errorf("under ARTT's ROUND_ROBIN: RoundRobinUnderTable %v, pick %q; want true and least-request", c.RoundRobinUnderTable, c.Pick)
	}
	// The user's LEAST_REQUEST is neither overwritten nor a conflict.
	if res, err := w.write(testScope, target{namespace: ns, name: "lr-user"}, comps[ns+"/lr"], table, true, "", false); err != nil || res != written {
		t.Fatalf("the user's LEAST_REQUEST rule: %v, %v; want written", res, err)
	}
	if got := simpleOf("lr-user"); got != networkingapi.LoadBalancerSettings_LEAST_REQUEST {
		t.Errorf("the user's LEAST_REQUEST rule now says %v", got)
	}
}

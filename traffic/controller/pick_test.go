package controller

import (
	"testing"
	"time"

	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/traffic"
)

// A component's pick is its user's rule's loadBalancer.simple (the oldest
// rule for its host, the one ARTT writes into), and Istio's default
// LEAST_REQUEST where there is no user's rule or it sets no policy; ARTT's
// own rule and other hosts' rules say nothing.
func TestPickIsTheUsersRulesPolicy(t *testing.T) {
	comp := component{name: "shop/backend", namespace: "shop", workload: "backend", host: "backend.shop.svc.cluster.local"}
	rule := func(name, host string, age time.Duration, simple networkingapi.LoadBalancerSettings_SimpleLB) *networkingv1.DestinationRule {
		r := &networkingv1.DestinationRule{ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "shop", CreationTimestamp: metav1.NewTime(time.Unix(1000, 0).Add(-age)),
		}}
		r.Spec.Host = host
		if simple != networkingapi.LoadBalancerSettings_UNSPECIFIED {
			r.Spec.TrafficPolicy = &networkingapi.TrafficPolicy{LoadBalancer: &networkingapi.LoadBalancerSettings{
				LbPolicy: &networkingapi.LoadBalancerSettings_Simple{Simple: simple},
			}}
		}
		return r
	}
	for _, c := range []struct {
		name  string
		rules []*networkingv1.DestinationRule
		want  traffic.Pick
	}{
		{"no rule: Istio's default", nil, traffic.PickByQueue},
		{"a rule without a policy", []*networkingv1.DestinationRule{rule("b", "backend", time.Hour, networkingapi.LoadBalancerSettings_UNSPECIFIED)}, traffic.PickByQueue},
		{"ROUND_ROBIN", []*networkingv1.DestinationRule{rule("b", "backend", time.Hour, networkingapi.LoadBalancerSettings_ROUND_ROBIN)}, traffic.PickBlind},
		{"RANDOM", []*networkingv1.DestinationRule{rule("b", "backend.shop", time.Hour, networkingapi.LoadBalancerSettings_RANDOM)}, traffic.PickBlind},
		{"LEAST_REQUEST", []*networkingv1.DestinationRule{rule("b", "backend.shop.svc.cluster.local", time.Hour, networkingapi.LoadBalancerSettings_LEAST_REQUEST)}, traffic.PickByQueue},
		{"the oldest rule for the host wins", []*networkingv1.DestinationRule{
			rule("newer", "backend", time.Minute, networkingapi.LoadBalancerSettings_LEAST_REQUEST),
			rule("older", "backend", time.Hour, networkingapi.LoadBalancerSettings_ROUND_ROBIN),
		}, traffic.PickBlind},
		{"ARTT's own rule and another host's say nothing", []*networkingv1.DestinationRule{
			rule(RuleName("backend"), "backend", time.Hour, networkingapi.LoadBalancerSettings_ROUND_ROBIN),
			rule("frontend", "frontend", time.Hour, networkingapi.LoadBalancerSettings_ROUND_ROBIN),
		}, traffic.PickByQueue},
	} {
		if got := pickOf(userRule(c.rules, comp)); got != c.want {
			t.Errorf("%s: pick %q, want %q", c.name, got, c.want)
		}
	}
}

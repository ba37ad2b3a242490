package controller

import (
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"
	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	applyv1 "istio.io/client-go/pkg/applyconfiguration/networking/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/traffic/istio"
)

func loc(node string) string { return "r1/z1/" + node }

// validIstio re-checks a written rule against istiod's rules.
func validIstio(t *testing.T, dr *networkingv1.DestinationRule) {
	t.Helper()
	var ds []istio.Distribute
	for from, to := range distribution(dr) {
		ds = append(ds, istio.Distribute{From: from, To: to})
	}
	if err := istio.Validate(ds); err != nil {
		t.Errorf("written rule breaks Istio's rules: %v", err)
	}
}

func receives(dist map[string]map[string]uint32, node string) bool {
	for _, to := range dist {
		if to[loc(node)] > 0 {
			return true
		}
	}
	return false
}

func TestRoutingAndImmediateReaction(t *testing.T) {
	needCluster(t)
	createApp(t, "shop")
	in := start(t, instanceOptions{})

	var dr *networkingv1.DestinationRule
	waitFor(t, 20*time.Second, "DestinationRule artt-backend written", func() bool {
		var err error
		dr, err = getRule("shop", "artt-backend")
		return err == nil && len(distribution(dr)) == 3
	})
	t.Run("weights move away from the slow node and the slow link", func(t *testing.T) {
		if dr.Spec.GetHost() != "backend.shop.svc.cluster.local" || dr.Labels["app.kubernetes.io/managed-by"] != FieldManager {
			t.Errorf("rule host %q labels %v", dr.Spec.GetHost(), dr.Labels)
		}
		validIstio(t, dr)
		dist := distribution(dr)
		if w := dist[loc("n2")][loc("n3")]; w != 0 {
			t.Errorf("n2 → n3 (the 20 ms link) carries weight %d, want the link removed", w)
		}
		if w := dist[loc("n3")][loc("n2")]; w != 0 {
			t.Errorf("n3 → n2 (the 20 ms link) carries weight %d, want the link removed", w)
		}
		// Each frontend node supplies a third; n3 needs twice the CPU per request.
		n3 := 0.0
		for _, to := range dist {
			n3 += float64(to[loc("n3")]) / 100 / 3
		}
		if !(n3 < 1.0/3-0.02) {
			t.Errorf("the slow node receives %.3f of the traffic, want less than its equal third", n3)
		}
	})

	t.Run("pod deletion re-routes within one second", func(t *testing.T) {
		victim := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "backend-n1", Namespace: "shop"}}
		if err := k8s.Delete(testScope, victim, client.GracePeriodSeconds(0)); err != nil {
			t.Fatal(err)
		}
		took := waitFor(t, 3*time.Second, "n1 dropped after its backend pod was deleted", func() bool {
			dr, err := getRule("shop", "artt-backend")
			return err == nil && !receives(distribution(dr), "n1")
		})
		t.Logf("reaction to a pod deletion: %s (from the delete call; cycle interval 2s)", took)
		if took > time.Second {
			t.Errorf("took %s, want under 1s", took)
		}
		if n := counter(t, in.reg, "artt_traffic_reaction_seconds", nil); n == 0 {
			t.Error("no reaction recorded in artt_traffic_reaction_seconds")
		}
		createPod(t, "shop", "backend-n1", "backend", "n1")
	})

	t.Run("node NotReady re-routes within one second", func(t *testing.T) {
		setNodeReady(t, "n3", false)
		defer setNodeReady(t, "n3", true)
		took := waitFor(t, 3*time.Second, "n3 dropped after it went NotReady", func() bool {
			dr, err := getRule("shop", "artt-backend")
			if err != nil {
				return false
			}
			dist := distribution(dr)
			_, fromN3 := dist[loc("n3")]
			return !receives(dist, "n3") && !fromN3
		})
		t.Logf("reaction to a node going NotReady: %s", took)
		if took > time.Second {
			t.Errorf("took %s, want under 1s", took)
		}
		dr, _ := getRule("shop", "artt-backend")
		validIstio(t, dr)
	})

	t.Run("cycle time", func(t *testing.T) {
		mfs, err := in.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() != "artt_traffic_cycle_duration_seconds" {
				continue
			}
			for _, m := range mf.GetMetric() {
				h := m.GetHistogram()
				if h.GetSampleCount() > 0 {
					t.Logf("%s reallocations: %d, mean %.1f ms", m.GetLabel()[0].GetValue(), h.GetSampleCount(), 1000*h.GetSampleSum()/float64(h.GetSampleCount()))
				}
			}
		}
		if n := counter(t, in.reg, "artt_traffic_cycle_duration_seconds", map[string]string{"trigger": "cycle"}); n == 0 {
			t.Error("no cycle recorded")
		}
	})
}

func TestUserDestinationRuleKeepsItsFields(t *testing.T) {
	needCluster(t)
	createApp(t, "user")
	user := &networkingv1.DestinationRule{
		ObjectMeta: metav1.ObjectMeta{Name: "backend-user", Namespace: "user"},
		Spec: networkingapi.DestinationRule{
			Host: "backend",
			TrafficPolicy: &networkingapi.TrafficPolicy{
				ConnectionPool: &networkingapi.ConnectionPoolSettings{Tcp: &networkingapi.ConnectionPoolSettings_TCPSettings{MaxConnections: 100}},
				LoadBalancer: &networkingapi.LoadBalancerSettings{LbPolicy: &networkingapi.LoadBalancerSettings_Simple{
					Simple: networkingapi.LoadBalancerSettings_ROUND_ROBIN}},
			},
		},
	}
	if _, err := ic.NetworkingV1().DestinationRules("user").Create(testScope, user, metav1.CreateOptions{FieldManager: "platform-team"}); err != nil {
		t.Fatal(err)
	}
	start(t, instanceOptions{})
	var dr *networkingv1.DestinationRule
	waitFor(t, 20*time.Second, "ARTT's weights in the user's rule", func() bool {
		var err error
		dr, err = getRule("user", "backend-user")
		return err == nil && len(distribution(dr)) > 0
	})
	tp := dr.Spec.GetTrafficPolicy()
	if tp.GetConnectionPool().GetTcp().GetMaxConnections() != 100 || tp.GetLoadBalancer().GetSimple() != networkingapi.LoadBalancerSettings_ROUND_ROBIN {
		t.Errorf("user's fields changed: %v", tp)
	}
	if dr.Spec.GetHost() != "backend" {
		t.Errorf("host %q, want the user's short host kept", dr.Spec.GetHost())
	}
	owners := map[string]bool{}
	for _, mf := range dr.ManagedFields {
		owners[mf.Manager] = true
	}
	if !owners[FieldManager] || !owners["platform-team"] {
		t.Errorf("field managers %v, want both platform-team and %s", owners, FieldManager)
	}
	if _, err := getRule("user", "artt-backend"); err == nil {
		t.Error("ARTT created its own rule beside the user's for the same host")
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	needCluster(t)
	createApp(t, "dry")
	in := start(t, instanceOptions{dryRun: true})
	waitFor(t, 20*time.Second, "dry-run allocations", func() bool {
		return counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "dry-run"}) > 0
	})
	list, err := ic.NetworkingV1().DestinationRules("dry").List(testScope, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("dry run wrote %d rules", len(list.Items))
	}
	if counter(t, in.reg, "artt_traffic_group_share", map[string]string{"component": "dry/backend"}) == 0 {
		t.Error("dry run exported no shares")
	}
}

func TestConflictIsReportedNotForcedAndRetried(t *testing.T) {
	needCluster(t)
	createApp(t, "conflict")
	theirs := applyv1.DestinationRule("backend-owned", "conflict")
	theirs.Spec = &networkingapi.DestinationRule{
		Host: "backend.conflict.svc.cluster.local",
		TrafficPolicy: &networkingapi.TrafficPolicy{LoadBalancer: &networkingapi.LoadBalancerSettings{
			LocalityLbSetting: &networkingapi.LocalityLoadBalancerSetting{Enabled: wrapperspb.Bool(true), Distribute: []*networkingapi.LocalityLoadBalancerSetting_Distribute{
				{From: loc("n1"), To: map[string]uint32{loc("n1"): 100}},
			}},
		}},
	}
	if _, err := ic.NetworkingV1().DestinationRules("conflict").Apply(testScope, theirs, metav1.ApplyOptions{FieldManager: "platform-team"}); err != nil {
		t.Fatal(err)
	}
	in := start(t, instanceOptions{})
	waitFor(t, 20*time.Second, "conflict reported", func() bool {
		return counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "conflict"}) > 0
	})
	dr, err := getRule("conflict", "backend-owned")
	if err != nil {
		t.Fatal(err)
	}
	if d := distribution(dr); len(d) != 1 || d[loc("n1")][loc("n1")] != 100 {
		t.Fatalf("the other manager's weights were overwritten: %v", d)
	}
	// The platform team gives the field up; ARTT's next cycle writes it.
	theirs.Spec.TrafficPolicy = nil
	if _, err := ic.NetworkingV1().DestinationRules("conflict").Apply(testScope, theirs, metav1.ApplyOptions{FieldManager: "platform-team"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "ARTT's weights written after the conflict cleared", func() bool {
		dr, err := getRule("conflict", "backend-owned")
		return err == nil && len(distribution(dr)) == 3
	})
}

func TestPrometheusOutageKeepsLastRouting(t *testing.T) {
	needCluster(t)
	createApp(t, "outage")
	in := start(t, instanceOptions{})
	var before *networkingv1.DestinationRule
	waitFor(t, 20*time.Second, "routing written", func() bool {
		var err error
		before, err = getRule("outage", "artt-backend")
		return err == nil && len(distribution(before)) == 3
	})
	if err := prom.Stop(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := prom.Restart(); err != nil {
			t.Fatal(err)
		}
	}()
	waitFor(t, 10*time.Second, "collection error visible", func() bool {
		return counter(t, in.reg, "artt_traffic_collect_errors_total", nil) >= 2
	})
	if up := counter(t, in.reg, "artt_traffic_prometheus_up", nil); up != 0 {
		t.Errorf("artt_traffic_prometheus_up = %v during the outage", up)
	}
	after, err := getRule("outage", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("routing rewritten during the outage: %v → %v", distribution(before), distribution(after))
	}
}

func TestOnlyTheLeaderWritesAndAnotherTakesOver(t *testing.T) {
	needCluster(t)
	createApp(t, "leader")
	a := start(t, instanceOptions{leaderElect: true})
	b := start(t, instanceOptions{leaderElect: true})
	cycles := func(in *instance) float64 { return counter(t, in.reg, "artt_traffic_cycle_duration_seconds", nil) }
	waitFor(t, 30*time.Second, "one leader allocating", func() bool { return cycles(a)+cycles(b) > 0 })
	time.Sleep(3 * time.Second)
	leader, follower := a, b
	if cycles(b) > 0 {
		leader, follower = b, a
	}
	if cycles(follower) != 0 {
		t.Fatalf("both instances allocated (%v and %v cycles)", cycles(a), cycles(b))
	}
	if w := counter(t, follower.reg, "artt_traffic_destinationrule_writes_total", nil); w != 0 {
		t.Errorf("the follower wrote %v times", w)
	}
	leader.stop()
	took := waitFor(t, 15*time.Second, "the follower takes over", func() bool { return cycles(follower) > 0 })
	t.Logf("takeover after the leader stopped: %s", took)
}

// A node's backend starts needing three times the CPU per request (a noisy
// neighbour): the fast path cuts its traffic at the next measurement,
// without waiting for the cycle, and counts the protection.
func TestFastPathCutsADegradedNodeBetweenCycles(t *testing.T) {
	needCluster(t)
	createApp(t, "protect")
	// The default queries read the last scrape interval (1 s here); a
	// cycle only every minute, so only the fast path can react in time.
	q := testQueries()
	in := start(t, instanceOptions{interval: time.Minute, protectInterval: time.Second, queries: &q})
	share := func() float64 {
		dr, err := getRule("protect", "artt-backend")
		if err != nil {
			return -1
		}
		n1 := 0.0
		for _, to := range distribution(dr) {
			n1 += float64(to[loc("n1")]) / 100 / 3
		}
		return n1
	}
	waitFor(t, 20*time.Second, "routing written", func() bool { return share() > 0 })
	// Let the health baselines learn the normal cost from a few measurements.
	time.Sleep(4 * time.Second)
	before := share()
	exporter.Set(clusterSeries(map[string]float64{"protect/backend-n1": 3}, testNamespaces...))
	defer exporter.Set(clusterSeries(nil, testNamespaces...))
	// A weight of 1/k on n1 leaves it s/k ÷ (s/k + 1 − s) of the traffic:
	// 0.17 for k = 3 from 0.38. Below 0.6 × its share means k above 2, not
	// rounding.
	took := waitFor(t, 20*time.Second, "n1's share cut", func() bool { return share() < 0.6*before })
	t.Logf("n1's share %.3f → %.3f, %s after its cost tripled (the default queries, 1 s scrape and fast path)", before, share(), took)
	if n := counter(t, in.reg, "artt_traffic_protections_total", nil); n < 1 {
		t.Errorf("artt_traffic_protections_total = %v; want the cut counted as a protection", n)
	}
	if n := counter(t, in.reg, "artt_traffic_cycle_duration_seconds", map[string]string{"trigger": "cycle"}); n != 1 {
		t.Errorf("%v cycles ran; want only the first, so the cut came from the fast path", n)
	}
}

// TestCacheHoldsUsersRulesOnly checks what the controller reads rules
// from: a user's rule reaches its cache, ARTT's own rule (written before
// the user's was created) never does, so ARTT's writes do not come back to
// it as watch events.
func TestCacheHoldsUsersRulesOnly(t *testing.T) {
	needCluster(t)
	createApp(t, "cached")
	in := start(t, instanceOptions{})
	waitFor(t, 20*time.Second, "ARTT's own rule written", func() bool {
		dr, err := getRule("cached", RuleName("backend"))
		return err == nil && len(distribution(dr)) > 0
	})
	user := &networkingv1.DestinationRule{
		ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "cached"},
		Spec:       networkingapi.DestinationRule{Host: "elsewhere.example.com"},
	}
	if _, err := ic.NetworkingV1().DestinationRules("cached").Create(testScope, user, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cached networkingv1.DestinationRuleList
	waitFor(t, 10*time.Second, "the user's rule in the cache", func() bool {
		if err := in.c.client.List(testScope, &cached, client.InNamespace("cached")); err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(cached.Items, func(r *networkingv1.DestinationRule) bool { return r.Name == "elsewhere" })
	})
	for _, r := range cached.Items {
		if r.Labels[ManagedByLabel] == FieldManager {
			t.Errorf("ARTT's own rule %s/%s is in the cache", r.Namespace, r.Name)
		}
	}
}

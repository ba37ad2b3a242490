package mesh_test

import (
	"slices"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"
	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// deletePodAndEndpoint deletes a pod and its endpoint in its Service's
// EndpointSlice, as the endpoint-slice controller would.
func deletePodAndEndpoint(t *testing.T, ns, pod string) {
	t.Helper()
	if err := k8s.Delete(testScope, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: ns}}); err != nil {
		t.Fatal(err)
	}
	var slice discoveryv1.EndpointSlice
	if err := k8s.Get(testScope, client.ObjectKey{Namespace: ns, Name: "backend-slice"}, &slice); err != nil {
		t.Fatal(err)
	}
	slice.Endpoints = slices.DeleteFunc(slice.Endpoints, func(e discoveryv1.Endpoint) bool { return e.TargetRef != nil && e.TargetRef.Name == pod })
	if err := k8s.Update(testScope, &slice); err != nil {
		t.Fatal(err)
	}
}

// distribution reads a rule's distribute entries as from → to → weight.
func distribution(dr *networkingv1.DestinationRule) map[string]map[string]uint32 {
	out := map[string]map[string]uint32{}
	for _, d := range dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetLocalityLbSetting().GetDistribute() {
		out[d.GetFrom()] = d.GetTo()
	}
	return out
}

func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stableRule waits until ns's rule name has not changed for four seconds
// (two of artt-traffic's cycles) and returns it.
func stableRule(t *testing.T, ns, name string, ok func(*networkingv1.DestinationRule) bool) *networkingv1.DestinationRule {
	t.Helper()
	var last *networkingv1.DestinationRule
	var since time.Time
	waitFor(t, 90*time.Second, ns+"/"+name+" written and stable", func() bool {
		dr, err := ic.NetworkingV1().DestinationRules(ns).Get(testScope, name, metav1.GetOptions{})
		if err != nil || !ok(dr) {
			last = nil
			return false
		}
		if last == nil || dr.ResourceVersion != last.ResourceVersion {
			last, since = dr, time.Now()
			return false
		}
		return time.Since(since) >= 4*time.Second
	})
	return last
}

// pushed asks a fresh sidecar on node for ns's backend endpoints until
// what istiod sends satisfies match, within 20 s, and returns it and how
// long istiod took to catch up with the rule (it debounces config changes
// before it rebuilds what it pushes).
func pushed(t *testing.T, ns, node string, match func(map[string]localityEndpoints) bool) (map[string]localityEndpoints, time.Duration) {
	t.Helper()
	start := time.Now()
	var got map[string]localityEndpoints
	for {
		sc := newSidecar(t, ns, node)
		sc.request(t, edsType, backendCluster(ns))
		got = endpointsOf(t, sc.receive(t, edsType, 30*time.Second), backendCluster(ns))
		sc.cancel()
		if match(got) || time.Since(start) > 20*time.Second {
			return got, time.Since(start)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// backendClusterSeenOn is ns's backend cluster as istiod sends it to the
// sidecar on node.
func backendClusterSeenOn(t *testing.T, ns, node string) *clusterv3.Cluster {
	t.Helper()
	sc := newSidecar(t, ns, node)
	sc.request(t, cdsType)
	return clusterOf(t, sc.receive(t, cdsType, 30*time.Second), backendCluster(ns))
}

// rowMatches reports whether a sidecar's endpoints follow a distribute
// row: each locality in it at its weight with its endpoint, every other
// one without endpoints (istiod still lists it, at weight 1).
func rowMatches(row map[string]uint32, got map[string]localityEndpoints, nodes []string) bool {
	for _, m := range nodes {
		l := locality(m)
		want, inRow := row[l]
		if inRow && (got[l].weight != want || got[l].endpoints != 1) || !inRow && got[l].endpoints != 0 {
			return false
		}
	}
	return true
}

// What the sidecars receive for the rules artt-traffic writes, from
// istiod itself: on each node, the locality weights of that node's row,
// nothing for a locality the row leaves out, and LEAST_REQUEST inside the
// localities; with the component left to Envoy's least-request, no
// locality weights and no failover priorities although the user's rule has
// outlier detection, and the user's fields kept; and once the user's rule
// turns to ROUND_ROBIN, whose blind split adds the queueing a table was
// left for, the table back, carried under the user's policy.
func TestSidecarsReceiveARTTsRules(t *testing.T) {
	needCluster(t)
	createNodes(t)
	createApp(t, appNamespace)
	createApp(t, handoverNamespace)
	user := &networkingv1.DestinationRule{
		ObjectMeta: metav1.ObjectMeta{Name: "backend-user", Namespace: handoverNamespace},
		Spec: networkingapi.DestinationRule{Host: "backend", TrafficPolicy: &networkingapi.TrafficPolicy{
			LoadBalancer:     &networkingapi.LoadBalancerSettings{LbPolicy: &networkingapi.LoadBalancerSettings_Simple{Simple: networkingapi.LoadBalancerSettings_LEAST_REQUEST}},
			OutlierDetection: &networkingapi.OutlierDetection{Consecutive_5XxErrors: wrapperspb.UInt32(5)},
		}},
	}
	if _, err := ic.NetworkingV1().DestinationRules(handoverNamespace).Create(testScope, user, metav1.CreateOptions{FieldManager: "platform-team"}); err != nil {
		t.Fatal(err)
	}
	runTraffic(t)

	table := stableRule(t, appNamespace, "artt-backend", func(dr *networkingv1.DestinationRule) bool { return len(distribution(dr)) == len(appNodes) })
	rows := distribution(table)
	t.Run("each caller's node gets its row", func(t *testing.T) {
		missing := 0
		for _, n := range appNodes {
			row := rows[locality(n)]
			got, took := pushed(t, appNamespace, n, func(got map[string]localityEndpoints) bool { return rowMatches(row, got, appNodes) })
			if !rowMatches(row, got, appNodes) {
				t.Errorf("caller on %s: the rule's row %v, the sidecar's endpoints %v (weight, priority, endpoints per locality) after %s", n, row, got, took.Round(time.Millisecond))
			} else {
				t.Logf("caller on %s: row %v reached the sidecar %s after the rule settled", n, row, took.Round(time.Millisecond))
			}
			missing += len(appNodes) - len(row)
		}
		if missing == 0 {
			t.Error("every row names every locality: the missing-locality case was not exercised")
		}
	})
	t.Run("least-request inside a locality by default", func(t *testing.T) {
		if c := backendClusterSeenOn(t, appNamespace, appNodes[0]); c.GetLbPolicy() != clusterv3.Cluster_LEAST_REQUEST {
			t.Errorf("lb policy %s, want LEAST_REQUEST (Istio's default)", c.GetLbPolicy())
		}
	})

	t.Run("istiod down: the rule still moves, and reaches the sidecars when istiod returns", func(t *testing.T) {
		istiodDownAndBack(t, rows)
	})

	stableRule(t, handoverNamespace, "backend-user", func(dr *networkingv1.DestinationRule) bool {
		lb := dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetLocalityLbSetting()
		return lb != nil && lb.GetEnabled() != nil && !lb.GetEnabled().GetValue()
	})
	t.Run("left to Envoy: no locality weights, no failover", func(t *testing.T) {
		plain := func(got map[string]localityEndpoints) bool {
			for _, e := range got {
				if e.weight > 1 || e.priority != 0 || e.endpoints != 1 {
					return false
				}
			}
			return len(got) == len(handoverNodes)
		}
		for _, n := range handoverNodes {
			got, took := pushed(t, handoverNamespace, n, plain)
			if !plain(got) {
				t.Errorf("caller on %s: %v (weight, priority, endpoints per locality) after %s; want every locality alike, one endpoint each, priority 0", n, got, took.Round(time.Millisecond))
			}
		}
	})
	t.Run("the user's fields survive", func(t *testing.T) {
		c := backendClusterSeenOn(t, handoverNamespace, handoverNodes[0])
		if c.GetLbPolicy() != clusterv3.Cluster_LEAST_REQUEST {
			t.Errorf("lb policy %s, want the user's LEAST_REQUEST", c.GetLbPolicy())
		}
		if got := c.GetOutlierDetection().GetConsecutive_5Xx().GetValue(); got != 5 {
			t.Errorf("consecutive 5xx %d, want the user's 5", got)
		}
	})
	t.Run("the user's ROUND_ROBIN takes the table back", func(t *testing.T) {
		turnUsersRuleTo(t, networkingapi.LoadBalancerSettings_ROUND_ROBIN)
		table := stableRule(t, handoverNamespace, "backend-user", func(dr *networkingv1.DestinationRule) bool {
			return len(distribution(dr)) == len(handoverNodes)
		})
		rows := distribution(table)
		for _, n := range handoverNodes {
			row := rows[locality(n)]
			got, took := pushed(t, handoverNamespace, n, func(got map[string]localityEndpoints) bool { return rowMatches(row, got, handoverNodes) })
			if !rowMatches(row, got, handoverNodes) {
				t.Errorf("caller on %s: the rule's row %v, the sidecar's endpoints %v after %s", n, row, got, took.Round(time.Millisecond))
			}
		}
		if c := backendClusterSeenOn(t, handoverNamespace, handoverNodes[0]); c.GetLbPolicy() != clusterv3.Cluster_ROUND_ROBIN {
			t.Errorf("lb policy %s, want the user's ROUND_ROBIN", c.GetLbPolicy())
		}
	})
	t.Run("a pod deleted reaches the sidecars", func(t *testing.T) {
		caller := appNodes[2]
		sc := newSidecar(t, appNamespace, caller)
		sc.request(t, edsType, backendCluster(appNamespace))
		sc.receive(t, edsType, 30*time.Second)
		start := time.Now()
		gone := "backend-" + appNodes[0]
		deletePodAndEndpoint(t, appNamespace, gone)
		for {
			got := endpointsOf(t, sc.receive(t, edsType, 30*time.Second), backendCluster(appNamespace))
			dr, err := ic.NetworkingV1().DestinationRules(appNamespace).Get(testScope, "artt-backend", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			row := distribution(dr)[locality(caller)]
			_, stillRouted := row[locality(appNodes[0])]
			if !stillRouted && got[locality(appNodes[0])].endpoints == 0 && rowMatches(row, got, appNodes[1:]) {
				t.Logf("%s deleted: the sidecar on %s has ARTT's new row %v %s later", gone, caller, row, time.Since(start).Round(time.Millisecond))
				return
			}
			if time.Since(start) > 30*time.Second {
				t.Fatalf("30 s after %s was deleted the sidecar on %s has %v, the rule's row %v", gone, caller, got, row)
			}
		}
	})
}

// turnUsersRuleTo sets the load balancer policy of the user's rule in
// handoverNamespace, as its owner would, leaving ARTT's fields as they are.
func turnUsersRuleTo(t *testing.T, simple networkingapi.LoadBalancerSettings_SimpleLB) {
	t.Helper()
	rules := ic.NetworkingV1().DestinationRules(handoverNamespace)
	dr, err := rules.Get(testScope, "backend-user", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dr.Spec.TrafficPolicy.LoadBalancer.LbPolicy = &networkingapi.LoadBalancerSettings_Simple{Simple: simple}
	if _, err := rules.Update(testScope, dr, metav1.UpdateOptions{FieldManager: "platform-team"}); err != nil {
		t.Fatal(err)
	}
}

// weightTo sums what a table's rows send to one node's locality.
func weightTo(rows map[string]map[string]uint32, node string) uint32 {
	var sum uint32
	for _, row := range rows {
		sum += row[locality(node)]
	}
	return sum
}

// istiodDownAndBack stops istiod, makes n1's backend three times as costly
// a request, and checks that artt-traffic moves n1's share down in its rule
// meanwhile (it writes to the kube-apiserver, never to istiod), and that
// once istiod is back every caller's sidecar receives the moved row: the
// rule written while istiod was down is not lost.
func istiodDownAndBack(t *testing.T, before map[string]map[string]uint32) {
	istiodProc.Stop()
	restarted := false
	defer func() {
		if !restarted {
			_ = istiodProc.Start(testScope)
		}
	}()
	exporter.Set(appSeries(map[string]float64{appNamespace + "/backend-n1": 3}))
	defer exporter.Set(appSeries(nil))
	moved := stableRule(t, appNamespace, "artt-backend", func(dr *networkingv1.DestinationRule) bool {
		rows := distribution(dr)
		return len(rows) == len(appNodes) && weightTo(rows, "n1") < weightTo(before, "n1")
	})
	rows := distribution(moved)
	t.Logf("with istiod down, n1's weight over the rows fell from %d to %d", weightTo(before, "n1"), weightTo(rows, "n1"))
	if err := istiodProc.Start(testScope); err != nil {
		t.Fatal(err)
	}
	restarted = true
	for _, n := range appNodes {
		row := rows[locality(n)]
		got, took := pushed(t, appNamespace, n, func(got map[string]localityEndpoints) bool { return rowMatches(row, got, appNodes) })
		if !rowMatches(row, got, appNodes) {
			t.Errorf("caller on %s after istiod returned: the rule's row %v, the sidecar's endpoints %v after %s", n, row, got, took.Round(time.Millisecond))
		}
	}
}

package controller

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// groupSharesOf reads a rule's per-node shares of a component's traffic:
// the mean over the caller localities of each node's weight (every caller
// node sends alike in the test's application).
func groupSharesOf(t *testing.T, ns, name string) map[string]float64 {
	t.Helper()
	dr, err := getRule(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	d := distribution(dr)
	for _, to := range d {
		for l, w := range to {
			out[l] += float64(w) / 100 / float64(len(d))
		}
	}
	return out
}

// firstWrite starts an instance that stops before its second changed
// write of ns's backend rule, calls then (the old leader stepping down, if
// any), and returns the rule's shares after the instance's first write,
// and the instance.
func firstWrite(t *testing.T, ns string, o instanceOptions, then func()) (map[string]float64, *instance) {
	t.Helper()
	var writes atomic.Int32
	first := make(chan struct{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	o.beforeWrite = func(component string) {
		if component != ns+"/backend" {
			return
		}
		switch writes.Add(1) {
		case 1:
			close(first)
		case 2:
			<-release
		}
	}
	in := start(t, o)
	then()
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("the new leader never wrote the backend's rule")
	}
	// One server-side apply; a second write, if any, waits for release.
	time.Sleep(time.Second)
	return groupSharesOf(t, ns, "artt-backend"), in
}

// A leader settles the backend's shares (n3 needs twice the CPU per
// request), then n2 degrades (five times the CPU per request) and is cut.
// The leader stops and a standby takes over, as in a rollout of
// artt-traffic: its first write
// keeps every share within the bound of the rule in force (×1.5 either
// way, give or take the rule's whole percents) and n2 still Degraded. With
// the state annotation removed, a third leader starts from nothing and
// gives n2 back far more at once, in its table or by leaving the backend
// to Envoy: what the first two would do without it.
func TestNewLeaderContinuesWhereTheLastStopped(t *testing.T) {
	needCluster(t)
	const ns = "restart"
	createApp(t, ns)
	a := start(t, instanceOptions{leaderElect: true})
	waitFor(t, 30*time.Second, "the first leader's rule", func() bool {
		dr, err := getRule(ns, "artt-backend")
		return err == nil && len(distribution(dr)) == 3
	})
	time.Sleep(10 * time.Second) // five cycles: the shares settle
	exporter.Set(clusterSeries(map[string]float64{ns + "/backend-n2": 5}, testNamespaces...))
	defer exporter.Set(clusterSeries(nil, testNamespaces...))
	degraded := map[string]string{"component": ns + "/backend", "node": "n2", "state": "Degraded"}
	waitFor(t, 60*time.Second, "n2 cut", func() bool {
		return counter(t, a.reg, "artt_traffic_group_health", degraded) == 1 && groupSharesOf(t, ns, "artt-backend")[loc("n2")] < 0.2
	})
	time.Sleep(4 * time.Second) // the cut in force for two cycles
	dr, err := getRule(ns, "artt-backend")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dr.Annotations[StateAnnotation]; !ok {
		t.Fatalf("the rule in force carries no %s annotation", StateAnnotation)
	}
	// The rule ARTT created, and its state with it, belongs to the
	// Deployment: the garbage collector deletes them together.
	var dep appsv1.Deployment
	if err := k8s.Get(testScope, client.ObjectKey{Namespace: ns, Name: "backend"}, &dep); err != nil {
		t.Fatal(err)
	}
	if refs := dr.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Deployment" || refs[0].Name != "backend" || refs[0].UID != dep.UID {
		t.Errorf("owner references %+v, want the backend Deployment (uid %s)", refs, dep.UID)
	}

	// A standby waits for the lease; the leader stops (a rollout).
	inForce := groupSharesOf(t, ns, "artt-backend")
	shares, b := firstWrite(t, ns, instanceOptions{leaderElect: true}, a.stop)
	t.Logf("in force %v, the new leader's first write %v", inForce, shares)
	for l, was := range inForce {
		if now := shares[l]; now > 1.5*was+0.015 || now < was/1.5-0.015 {
			t.Errorf("%s: %.3f → %.3f in the new leader's first write, past the bound ×1.5", l, was, now)
		}
	}
	if got := counter(t, b.reg, "artt_traffic_group_health", degraded); got != 1 {
		t.Errorf("n2 after the leader change: Degraded %v, want 1", got)
	}
	if got := counter(t, b.reg, "artt_traffic_resumed_components", map[string]string{"result": "resumed"}); got < 1 {
		t.Errorf("resumed components %v, want at least the backend", got)
	}
	b.stop()

	// The control: the state thrown away.
	patch := []byte(`{"metadata":{"annotations":{"` + StateAnnotation + `":null}}}`)
	if _, err := ic.NetworkingV1().DestinationRules(ns).Patch(testScope, "artt-backend", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	inForce = groupSharesOf(t, ns, "artt-backend")
	cold, _ := firstWrite(t, ns, instanceOptions{leaderElect: true}, func() {})
	t.Logf("in force %v, a leader from nothing writes %v", inForce, cold)
	if len(cold) == 0 {
		// No table: the backend left to Envoy, whose least-request gives
		// n2 its part at once, past any bound.
		dr, err := getRule(ns, "artt-backend")
		if err != nil {
			t.Fatal(err)
		}
		if lb := dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetLocalityLbSetting(); lb.GetEnabled() == nil || lb.GetEnabled().GetValue() {
			t.Errorf("a leader from nothing wrote no table, and left locality load balancing %v rather than off", lb.GetEnabled())
		}
		return
	}
	if was, now := inForce[loc("n2")], cold[loc("n2")]; now <= 1.5*was+0.015 || math.IsNaN(now) {
		t.Errorf("without the state n2 goes %.3f → %.3f: within the bound, so the test shows nothing", was, now)
	}
}

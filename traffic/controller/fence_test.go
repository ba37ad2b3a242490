package controller

import (
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// The leader stalls between computing a rule and writing it (a long GC
// pause, a frozen node) and meanwhile loses its lease: its manager reaches
// the apiserver through a proxy that goes down, while its writes still
// could (they go straight to it). The other instance takes over and
// writes. When the old leader wakes up it must not write: its write runs
// under the leader's context, which losing the lease ended. At any time one
// instance writes: the old leader's writes stop at the stall, the rule's
// resourceVersion moves only with the new leader's writes, and
// artt-traffic is the only field manager of the weights.
func TestStalledLeaderCannotWriteLate(t *testing.T) {
	needCluster(t)
	createApp(t, "fence")
	var armed atomic.Bool
	stalled := make(chan struct{}, 1)
	release := make(chan struct{})
	proxy := newAPIProxy(t, hostPort(t, cfg.Host))
	via := rest.CopyConfig(cfg)
	via.Host = "https://" + proxy.addr
	a := start(t, instanceOptions{leaderElect: true, restConfig: via, writeConfig: cfg, beforeWrite: func(component string) {
		if armed.Load() && component == "fence/backend" {
			select {
			case stalled <- struct{}{}:
			default:
			}
			<-release
		}
	}})
	written := func(in *instance) float64 {
		return counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "written"})
	}
	waitFor(t, 30*time.Second, "the first instance leading and writing", func() bool {
		dr, err := getRule("fence", "artt-backend")
		return err == nil && len(distribution(dr)) == 3 && written(a) > 0
	})
	b := start(t, instanceOptions{leaderElect: true})

	// The leader computes new weights and stalls before writing them.
	armed.Store(true)
	exporter.Set(clusterSeries(map[string]float64{"fence/backend-n2": 3}, testNamespaces...))
	defer exporter.Set(clusterSeries(nil, testNamespaces...))
	select {
	case <-stalled:
	case <-time.After(30 * time.Second):
		t.Fatal("the leader never reached a write with new weights")
	}
	before, err := getRule("fence", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}

	// It loses its lease; the other instance leads and writes.
	proxy.stop()
	took := waitFor(t, 30*time.Second, "the new leader's write", func() bool {
		dr, err := getRule("fence", "artt-backend")
		return err == nil && written(b) > 0 && dr.ResourceVersion != before.ResourceVersion
	})
	t.Logf("the new leader wrote %s after the old one lost its lease", took.Round(time.Millisecond))
	// From the new leader's first write on, any write by the old one is a
	// second writer (other namespaces' rules included).
	byAAtTakeover := written(a)
	b.stop() // from here on, only a late write could move the rule
	after, err := getRule("fence", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}

	// The old leader wakes up.
	close(release)
	a.stop()
	time.Sleep(500 * time.Millisecond)
	final, err := getRule("fence", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}
	if final.ResourceVersion != after.ResourceVersion {
		t.Errorf("the rule changed (resourceVersion %s → %s) after the old leader woke up: a late write", after.ResourceVersion, final.ResourceVersion)
	}
	if w := written(a); w != byAAtTakeover {
		t.Errorf("the old leader wrote %v times after the new leader took over", w-byAAtTakeover)
	}
	if got := counter(t, a.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "failed"}); got == 0 {
		t.Error("the old leader's late write was not even attempted: the test did not exercise the stall")
	}
	for _, mf := range final.ManagedFields {
		if mf.Manager != FieldManager && mf.Manager != "platform-team" {
			t.Errorf("field manager %q on the rule, want only %s", mf.Manager, FieldManager)
		}
	}
}

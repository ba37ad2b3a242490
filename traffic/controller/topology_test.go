package controller

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/placement/topology"
)

// Each cycle publishes the measured delays and call graph where
// artt-scheduler reads them, and rewrites the ConfigMap only when they
// change.
func TestTopologyIsPublishedForTheScheduler(t *testing.T) {
	needCluster(t)
	createApp(t, "topo")
	in := start(t, instanceOptions{topology: "default/artt-topology"})
	var cm corev1.ConfigMap
	// The write is counted after the apply returns, so the ConfigMap can be
	// read a moment before its write is counted.
	waitFor(t, 20*time.Second, "the topology ConfigMap, and its write counted", func() bool {
		err := k8s.Get(testScope, client.ObjectKey{Namespace: "default", Name: "artt-topology"}, &cm)
		return err == nil && strings.Contains(cm.Data[topology.CallsKey], "topo/frontend topo/backend") &&
			counter(t, in.reg, "artt_traffic_topology_writes_total", map[string]string{"result": "written"}) > 0
	})
	top, err := topology.Parse(cm.Data)
	if err != nil {
		t.Fatal(err)
	}
	delays := map[[2]string]float64{}
	for _, d := range top.Delays {
		delays[[2]string{d.From, d.To}] = d.Ms
	}
	if delays[[2]string{"n2", "n3"}] != 20 || delays[[2]string{"n1", "n2"}] != 0.5 {
		t.Errorf("published delays %v, want n2→n3 20 ms and n1→n2 0.5 ms as measured", delays)
	}
	written := counter(t, in.reg, "artt_traffic_topology_writes_total", map[string]string{"result": "written"})
	time.Sleep(3 * 2 * time.Second) // three more cycles, nothing measured changes
	if again := counter(t, in.reg, "artt_traffic_topology_writes_total", map[string]string{"result": "written"}); again != written {
		t.Errorf("an unchanged topology was written again: %v writes, then %v", written, again)
	}
	if cm.Labels["app.kubernetes.io/managed-by"] != FieldManager {
		t.Errorf("ConfigMap labels %v", cm.Labels)
	}
}

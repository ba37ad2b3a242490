package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/placement/topology"
	"github.com/artt-dev/artt/traffic"
)

// publishTopology writes what the cycle measured, the node-to-node delays
// and the call graph between managed Deployments, into the topology
// ConfigMap artt-scheduler plans from (Options.Topology). It writes only
// when the content changed, by server-side apply as artt-traffic.
func (c *Controller) publishTopology(ctx context.Context, snap traffic.Snapshot) {
	if c.opts.Topology == "" || c.opts.DryRun {
		return
	}
	ns, name, _ := strings.Cut(c.opts.Topology, "/")
	top := topology.Topology{Delays: snap.Delays}
	for _, call := range snap.Calls {
		top.Calls = append(top.Calls, topology.Call{From: call.From, To: call.To})
	}
	data := top.Data()
	fingerprint := data[topology.DelaysKey] + "\x00" + data[topology.CallsKey]
	if fingerprint == c.publishedTopology {
		return
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{ManagedByLabel: FieldManager}},
		Data:       data,
	}
	if err := c.client.Patch(ctx, cm, client.Apply, client.FieldOwner(FieldManager)); err != nil {
		c.tel.topologyWrites.WithLabelValues(string(failed)).Inc()
		c.log.Error("topology not published", "configMap", c.opts.Topology, "error", err)
		return
	}
	c.publishedTopology = fingerprint
	c.tel.topologyWrites.WithLabelValues(string(written)).Inc()
	c.log.Debug("topology published", "configMap", c.opts.Topology, "delays", len(top.Delays), "calls", len(top.Calls))
}

// checkTopologyRef validates Options.Topology: "" or namespace/name.
func checkTopologyRef(ref string) error {
	if ref == "" {
		return nil
	}
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("topology ConfigMap %q: want namespace/name, or empty to publish none", ref)
	}
	return nil
}

package controller

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/istio"
)

// writeRoutes exports each route's shares and health, and writes its rule,
// up to writeConcurrency at once; it returns how many writes ended how.
func (c *Controller) writeRoutes(ctx context.Context, alloc traffic.Allocation, snap traffic.Snapshot, comps map[string]component, rules []*networkingv1.DestinationRule) map[writeResult]int {
	writeStart := c.opts.Now()
	localities := make(map[string]string, len(snap.Nodes))
	for _, n := range snap.Nodes {
		localities[n.Name] = n.Locality
	}
	locate := func(node string) (string, bool) {
		l := localities[node]
		return l, l != ""
	}
	c.tel.share.Reset()
	c.tel.health.Reset()
	c.tel.envoy.Reset()
	results := map[writeResult]int{}
	var mu sync.Mutex // guards results
	count := func(res writeResult) {
		mu.Lock()
		results[res]++
		mu.Unlock()
	}
	var writes errgroup.Group
	writes.SetLimit(writeConcurrency)
	targets := make(map[string]bool, len(alloc.Routes))
	for _, r := range alloc.Routes {
		c.export(r)
		comp := comps[r.Component]
		ds, err := istio.Distributes(r, locate)
		if err != nil {
			c.tel.writes.WithLabelValues(string(failed)).Inc()
			count(failed)
			c.log.Error("cannot express the allocation for Istio", "component", r.Component, "error", err)
			continue
		}
		t := chooseTarget(rules, comp)
		targets[t.key()] = true
		// The state is encoded only for a rule that will be written.
		changes := c.writer.changes(t, comp, ds, !r.Envoy)
		state := ""
		if changes {
			state = c.stateOf(r.Component)
		}
		writes.Go(func() error {
			count(c.writeRoute(ctx, r, t, comp, ds, state, changes))
			return nil // a failed write is logged and counted; the others go on
		})
	}
	_ = writes.Wait()
	c.writer.keepOnly(targets)
	c.tel.phase.WithLabelValues("write").Observe(c.opts.Now().Sub(writeStart).Seconds())
	return results
}

// export sets a route's gauges: left to Envoy or not, each group's share
// and health.
func (c *Controller) export(r traffic.Route) {
	left := 0.0
	if r.Envoy {
		left = 1
	}
	c.tel.envoy.WithLabelValues(r.Component).Set(left)
	for _, g := range r.Groups {
		c.tel.share.WithLabelValues(r.Component, g.Node).Set(g.Share)
		if g.Health != "" {
			c.tel.health.WithLabelValues(r.Component, g.Node, g.Health).Set(1)
		}
	}
}

// writeRoute writes one route's rule and logs how it went; changes says
// whether its content differs from what was last written.
func (c *Controller) writeRoute(ctx context.Context, r traffic.Route, t target, comp component, ds []istio.Distribute, state string, changes bool) writeResult {
	if c.beforeWrite != nil && changes {
		c.beforeWrite(r.Component)
	}
	// The write runs under the leader's context: a leader that has lost its
	// lease (the manager cancels it) cannot write late.
	res, err := c.writer.write(ctx, t, comp, ds, !r.Envoy, state, c.opts.DryRun)
	c.tel.writes.WithLabelValues(string(res)).Inc()
	logArgs := []any{"component", r.Component, "destinationRule", t.key(), "result", res, "groups", groupSummary(r), "leftToEnvoy", r.Envoy}
	if r.SlowLinks > 0 {
		logArgs = append(logArgs, "slowLinksRemoved", r.RemovedLinks, "slowLinksKept", r.SlowLinks-r.RemovedLinks)
	}
	if r.KeptSlowUpToMs > 0 {
		logArgs = append(logArgs, "slowLinksKeptUpToMs", r.KeptSlowUpToMs)
	}
	switch {
	case err != nil:
		c.log.Error("routing not written", append(logArgs, "error", err)...)
	case comp.weightsDropped && !r.Envoy && res == written:
		c.log.Warn("routing written where gRPC's clients drop it: their rule's loadBalancer.simple is not ROUND_ROBIN; set ROUND_ROBIN, or leave it unset for artt-traffic to write it", logArgs...)
	case res == written || res == dryRun:
		c.log.Info("routing", logArgs...)
	default:
		c.log.Debug("routing", logArgs...)
	}
	return res
}

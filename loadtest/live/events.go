package live

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// LiveEvents are the scenario events a live run plays, each as a cluster
// meets it: node-slowdown scales the work of each request on the node
// (backend.SpeedPath), node-contention starts a neighbour's busy threads
// in the node's cgroup (Neighbour), node-quota cuts the node's CPU quota
// (Cgroups.SetNodeCores).
var LiveEvents = []string{"node-slowdown", "node-contention", "node-quota"}

// nodeFaults are the slowdowns in force on a run's nodes, to undo at its
// end so the next run starts on the scenario's cluster.
type nodeFaults struct {
	neighbours map[string]*Neighbour
	quotas     map[string]bool
	slowed     map[string]bool
}

// playEvents applies the scenario's events at their times from the
// load's start, as the lab does, until the last is applied or ctx ends.
func (a *Active) playEvents(ctx context.Context) error {
	for _, ev := range a.H.Plan.Scenario.Events {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Until(a.Started.Add(ev.At.Duration))):
		}
		if err := a.apply(ctx, ev); err != nil {
			return fmt.Errorf("event %s on %s at %s: %w", ev.Type, ev.Node, ev.At.Duration, err)
		}
		a.H.opts.Progress.Note(fmt.Sprintf("%s on %s", ev.Type, ev.Node))
	}
	return nil
}

func (a *Active) apply(ctx context.Context, ev scenario.Event) error {
	node := a.H.Plan.Scenario.Cluster.Nodes[a.H.Plan.nodeIndex(ev.Node)]
	f := &a.faults
	switch ev.Type {
	case "node-slowdown":
		f.slowed[ev.Node] = true
		return a.H.kubelet.setNodeSpeed(ctx, a.Namespace, ev.Node, ev.Speed, node.Speed)
	case "node-contention":
		var err error
		if n := f.neighbours[ev.Node]; n != nil {
			delete(f.neighbours, ev.Node)
			err = n.Stop()
		}
		if ev.Cores == 0 || err != nil {
			return err
		}
		n, err := a.H.cgroups.StartNeighbour(ev.Node, int(ev.Cores))
		f.neighbours[ev.Node] = n
		return err
	case "node-quota":
		f.quotas[ev.Node] = true
		return a.H.cgroups.SetNodeCores(ev.Node, math.Min(ev.Cores, node.Cores))
	}
	return fmt.Errorf("not a live event (the live loop plays %v)", LiveEvents)
}

// undoFaults stops every neighbour and gives each node back its cores
// and speed.
func (a *Active) undoFaults(ctx context.Context) error {
	var errs []error
	f := &a.faults
	for _, n := range f.neighbours {
		errs = append(errs, n.Stop())
	}
	for _, node := range a.H.Plan.Scenario.Cluster.Nodes {
		if f.quotas[node.Name] {
			errs = append(errs, a.H.cgroups.SetNodeCores(node.Name, node.Cores))
		}
		if f.slowed[node.Name] {
			errs = append(errs, a.H.kubelet.setNodeSpeed(ctx, a.Namespace, node.Name, 0, node.Speed))
		}
	}
	a.faults = newNodeFaults()
	return errors.Join(errs...)
}

func newNodeFaults() nodeFaults {
	return nodeFaults{neighbours: map[string]*Neighbour{}, quotas: map[string]bool{}, slowed: map[string]bool{}}
}

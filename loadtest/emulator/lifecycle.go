package emulator

import (
	"fmt"
	"math"
	"slices"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// createPod schedules a new pod of c: on the given node, or where the run's
// placement policy puts it (placement.go). Initial pods start ready; later
// ones after the startup delay.
func (e *Emulator) createPod(c *component, on *node, initial bool) (*replica, error) {
	if on == nil {
		on = e.placer.next(c)
		if on == nil {
			e.res.note(fmt.Sprintf("%.0fs: no node fits a %s pod (CPU request %.2f)", e.now, c.spec.Name, c.spec.CPURequest))
			return nil, nil
		}
	}
	p := &replica{
		id: len(e.pods), name: fmt.Sprintf("%s-%d", c.spec.Name, c.next), uid: e.uids.Uint64(), comp: c, node: on,
		state: starting, born: e.now, last: e.now, readyAt: math.NaN(), measureFrom: max(e.now, e.warmup),
		proxy: sidecar{node: on}, inService: newRequestHeap(),
	}
	c.next++
	e.placer.created(p)
	e.pods = append(e.pods, p)
	c.pods = append(c.pods, p)
	on.replicas = append(on.replicas, p)
	e.res.podCreated(p)
	if e.scrapes != nil {
		e.scrapes.created(p, initial)
	}
	if initial {
		p.state, p.readyAt = ready, e.now
		c.rebuildEndpoints()
	} else {
		e.q.push(event{at: e.now + e.sc.Control.PodStartup.Seconds(), kind: evPodReady, rep: p})
	}
	return p, nil
}

// schedule is the default scheduler: the Ready node with the lowest
// requested-CPU fraction that still fits the pod's CPU request
// (LeastAllocated scoring; ties to the first node).
func (e *Emulator) schedule(c *component) *node {
	var best *node
	bestFrac := 0.0
	for _, n := range e.nodes {
		if !n.fits(c, 0) {
			continue
		}
		if frac := (c.spec.CPURequest + n.requested()) / n.cores; best == nil || frac < bestFrac {
			best, bestFrac = n, frac
		}
	}
	return best
}

// podReady puts a started pod into the endpoints.
func (e *Emulator) podReady(p *replica) {
	if p.state != starting {
		return
	}
	p.state, p.readyAt = ready, e.now
	p.comp.rebuildEndpoints()
	e.checkCapacity()
	e.reactToChange()
}

// reactToChange re-runs allocation at once where the policy does so: ARTT
// reacts to pod and node changes between cycles; HEART and the static
// baselines wait for their cycle (the data plane still drops endpoints
// that are gone).
func (e *Emulator) reactToChange() {
	if e.run.Routing == "artt" {
		e.reallocate()
	}
}

// terminate removes a pod from the endpoints at once. A crashed pod is gone
// and its in-flight requests fail; a pod scaled down terminates gracefully:
// it finishes what it holds, then leaves the node.
func (e *Emulator) terminate(p *replica, crashed bool) {
	if p.state == gone || (p.state == terminating && !crashed) {
		return
	}
	e.advanceNode(p.node)
	if p.state != terminating {
		e.placer.gone(p)
	}
	p.comp.pods = slices.DeleteFunc(p.comp.pods, func(x *replica) bool { return x == p })
	if !crashed {
		p.state = terminating
		p.comp.rebuildEndpoints()
		e.res.podGone(p)
		e.leaveIfIdle(p)
		return
	}
	wasTerminating := p.state == terminating
	p.state = gone
	p.comp.rebuildEndpoints()
	if !wasTerminating {
		e.res.podGone(p)
	}
	var lost []*request
	for p.inService.Len() > 0 {
		lost = append(lost, p.inService.Pop())
	}
	lost = append(lost, p.waiting...)
	p.waiting = nil
	e.retime(p)
	p.node.replicas = slices.DeleteFunc(p.node.replicas, func(x *replica) bool { return x == p })
	for _, r := range lost {
		r.failed = true
		e.answer(r, p.node)
	}
}

// leaveIfIdle takes a terminating pod off its node once it holds nothing.
func (e *Emulator) leaveIfIdle(p *replica) {
	if p.state == terminating && p.outstanding == 0 {
		p.state = gone
		p.node.replicas = slices.DeleteFunc(p.node.replicas, func(x *replica) bool { return x == p })
	}
}

// inject applies a scenario event.
func (e *Emulator) inject(ev scenario.Event) error {
	switch ev.Type {
	case "node-slowdown":
		n := e.changeNode(ev.Node, func(n *node) { n.speed = ev.Speed })
		e.res.note(fmt.Sprintf("%.0fs: node %s slowed to speed %g", e.now, n.name, ev.Speed))
	case "node-contention":
		n := e.changeNode(ev.Node, func(n *node) { n.neighbour = ev.Cores })
		e.res.note(fmt.Sprintf("%.0fs: a neighbour keeps %g of node %s's %g cores busy", e.now, ev.Cores, n.name, n.cores))
	case "node-quota":
		n := e.changeNode(ev.Node, func(n *node) { n.quota = ev.Cores })
		e.res.note(fmt.Sprintf("%.0fs: node %s's pods get at most %g of its %g cores", e.now, n.name, n.available(), n.cores))
	case "pod-failure":
		c := e.byName[ev.Component]
		var victim *replica
		for _, p := range c.pods {
			if p.state != gone && (ev.Node == "" || p.node.name == ev.Node) {
				victim = p
				break
			}
		}
		if victim == nil {
			e.res.note(fmt.Sprintf("%.0fs: pod-failure found no %s pod", e.now, ev.Component))
			return nil
		}
		e.terminate(victim, true)
		e.res.note(fmt.Sprintf("%.0fs: pod %s failed; its ReplicaSet replaces it", e.now, victim.name))
		if _, err := e.createPod(c, nil, false); err != nil {
			return err
		}
		e.reactToChange()
	case "node-failure":
		n := e.nodeNamed(ev.Node)
		n.ready = false
		var lost []*replica
		for _, p := range n.replicas {
			if p.state != gone {
				lost = append(lost, p)
			}
		}
		for _, p := range lost {
			e.terminate(p, true)
			if _, err := e.createPod(p.comp, nil, false); err != nil {
				return err
			}
		}
		e.res.note(fmt.Sprintf("%.0fs: node %s failed with %d pods; replacements scheduled elsewhere", e.now, n.name, len(lost)))
		e.reactToChange()
	}
	return nil
}

// changeNode changes a node's CPU with every pod on it brought up to now
// before and retimed after.
func (e *Emulator) changeNode(name string, change func(*node)) *node {
	n := e.nodeNamed(name)
	e.advanceNode(n)
	change(n)
	for _, p := range n.replicas {
		if p.inService.Len() > 0 {
			e.retime(p) // retimes every pod of the node
			break
		}
	}
	return n
}

func (e *Emulator) nodeNamed(name string) *node {
	for _, n := range e.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

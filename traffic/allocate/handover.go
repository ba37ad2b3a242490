package allocate

import (
	"fmt"
	"math"
	"sync"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/health"
	"github.com/artt-dev/artt/traffic/queueing"
)

// A table of locality weights is a static split: each node's pods see only
// the traffic the table sends them, and no sidecar can steer a request away
// from a node whose queue happens to be long. Envoy's least-request, left
// alone, steers each request by the sidecar's own in-flight counts. So a
// table pays only when the network time it saves exceeds the queueing it
// adds. ARTT prices both for each component every cycle and writes its
// table only where it pays (or where a group is not Healthy, as only a table
// can cut it); elsewhere it leaves the component to Envoy.
//
// The prices are mean waits of M/M/c queues. Least-request, inside a node
// under a table or over every pod without one, lies between two limits.
// Where a sidecar's counts tell the two pods it drew apart, it keeps their
// queues even, as one queue pooled over the pods would. Where they do not (a
// sidecar with as many requests in flight to both, typically none, keeps the
// first), the pick is blind: priced as a split in proportion to each pod's
// capacity, every pod its own queue. The informed fraction is the chance
// that the two pods drawn are distinct and that the sidecar's counts to
// them differ, each count Poisson with mean q = requests in flight ÷
// (calling sidecars × pods). Many callers or few requests in flight make
// the counts thin, and least-request close to blind, with or without a
// table; a table also narrows the sidecars that send to each node, which
// thickens their counts there.
//
// The blind limit is generous to least-request, which really ignores
// capacity when blind, and so is the pooled one, which two informed choices
// do not reach. The error leans toward handing over, on purpose: a wrong
// handover costs at most the network time the table would have saved, a
// wrong table costs queueing that grows without bound as the nodes fill.

// handover is the verdict for one component.
type handover struct {
	// envoy is true when the component is left to Envoy.
	envoy bool
	// savingMs is the network time per request (both ways) the table saves
	// against least-request's spread; queueingMs the mean wait it adds.
	savingMs, queueingMs float64
	// spreadCost is least-request's Σ traffic × one-way delay, the route's
	// Cost when it is left to Envoy.
	spreadCost float64
	// why explains a table kept without pricing (missing data, a group not
	// Healthy); empty when the prices decided.
	why string
}

// judgeHandover prices route r, whose Groups carry the shares the table
// would give, against least-request's spread of the same traffic;
// callersOn counts the calling sidecars on each node.
func judgeHandover(x *traffic.Index, r traffic.Route, groups []traffic.Group, supplies []traffic.Amount, callersOn map[string]int) handover {
	for _, g := range r.Groups {
		if g.Health != "" && g.Health != string(health.Healthy) {
			return handover{why: "a group is " + g.Health + ": only a table can cut it"}
		}
	}
	lambda, podRates, ok := serviceRates(groups)
	if !ok {
		return handover{why: "no request rate or CPU per request measured yet: table kept"}
	}
	shares := make(map[string]float64, len(r.Groups))
	for _, g := range r.Groups {
		shares[g.Node] = g.Share
	}
	// The sidecars that send to each node under the table.
	callersTo := make(map[string]int)
	allCallers := 0
	for _, n := range callersOn {
		allCallers += n
	}
	for _, s := range r.Sources {
		for _, t := range s.To {
			callersTo[t.Node] += callersOn[s.Node]
		}
	}
	var capacity float64
	var allPods []float64
	groupCapacity := make([]float64, len(groups))
	table := 0.0
	for i, g := range groups {
		for _, mu := range podRates[i] {
			groupCapacity[i] += mu
		}
		capacity += groupCapacity[i]
		allPods = append(allPods, podRates[i]...)
		if s := shares[g.Node]; s > 0 {
			table += s * leastRequestWait(s*lambda, podRates[i], callersTo[g.Node])
		}
	}
	envoy := leastRequestWait(lambda, allPods, allCallers)
	queueingMs := 1000 * (table - envoy)
	if math.IsInf(envoy, 1) {
		// Saturated whatever the split: only per-request balancing spreads
		// the excess by each pod's speed.
		queueingMs = math.Inf(1)
	}
	// Network: least-request's spread sends each node a part in proportion
	// to its capacity, from every caller alike.
	spread := 0.0
	at := make([]traffic.Amount, len(groups))
	for i, g := range groups {
		at[i].Node = g.Node
	}
	buf := delayBuffers.Get().(*[]float64)
	defer delayBuffers.Put(buf)
	*buf = x.DelayMatrix(*buf, supplies, at)
	delays := *buf
	for k, s := range supplies {
		for i := range groups {
			if d := delays[k*len(groups)+i]; !math.IsNaN(d) {
				spread += s.Value * groupCapacity[i] / capacity * d
			}
		}
	}
	savingMs := 2 * (spread - r.Cost)
	return handover{envoy: savingMs <= queueingMs, savingMs: savingMs, queueingMs: queueingMs, spreadCost: spread}
}

// leastRequestWait is the mean wait when callers sidecars spread lambda
// requests per second over pods of the given service rates by
// least-request: between the pooled and the blind limit by the informed
// fraction (see above).
func leastRequestWait(lambda float64, rates []float64, callers int) float64 {
	k := float64(len(rates))
	capacity := 0.0
	for _, mu := range rates {
		capacity += mu
	}
	pooled := queueing.MeanWait(len(rates), lambda, capacity/k)
	if math.IsInf(pooled, 1) {
		return pooled
	}
	// Blind: pod i gets λ·μᵢ/Σμ, so every pod runs at the same utilisation.
	blind := 0.0
	for _, mu := range rates {
		blind += mu / capacity * queueing.MeanWait(1, lambda*mu/capacity, mu)
	}
	// Requests in flight on the blind split (Little's law), spread over
	// every caller–pod pair.
	inFlight := lambda * (k/capacity + blind)
	q := inFlight / (float64(max(callers, 1)) * k)
	informed := (1 - 1/k) * (1 - queueing.TieProbability(q))
	return pooled + (1-informed)*(blind-pooled)
}

// serviceRates measures a component: the request rate it serves, and per
// group the requests per second each pod can serve (its CPU limit over the
// group's CPU seconds per request, the component's where the group has
// served nothing yet). ok is false when the rate or every group's cost is
// unknown.
func serviceRates(groups []traffic.Group) (lambda float64, podRates [][]float64, ok bool) {
	var cpu, served float64
	for _, g := range groups {
		for _, r := range g.Replicas {
			if math.IsNaN(r.Requests) {
				return 0, nil, false
			}
			lambda += r.Requests
			if r.Requests > 0 && !math.IsNaN(r.CPU) {
				cpu += r.CPU
				served += r.Requests
			}
		}
	}
	if !(served > 0 && cpu > 0) {
		return 0, nil, false
	}
	componentCost := cpu / served
	podRates = make([][]float64, len(groups))
	for i, g := range groups {
		cost, ok := g.CostPerRequest()
		if !ok {
			cost = componentCost
		}
		podRates[i] = make([]float64, len(g.Replicas))
		for j, r := range g.Replicas {
			podRates[i][j] = r.Limit() / cost
		}
	}
	return lambda, podRates, true
}

// callersOn counts, per node, the ready pods of the components calling
// component: each runs a sidecar with its own least-request counts.
func callersOn(x *traffic.Index, component string) map[string]int {
	out := make(map[string]int)
	for _, up := range x.Upstreams(component) {
		for _, g := range x.Groups(up) {
			out[g.Node] += len(g.Replicas)
		}
	}
	return out
}

// note is the verdict as a route note.
func (h handover) note() string {
	switch {
	case h.why != "":
		return h.why
	case h.envoy:
		return fmt.Sprintf("left to Envoy's least-request: the table would save %.2f ms of network per request and add %.2f ms of queueing", h.savingMs, h.queueingMs)
	default:
		return fmt.Sprintf("table written: it saves %.2f ms of network per request and adds %.2f ms of queueing", h.savingMs, h.queueingMs)
	}
}

// delayBuffers keeps the arrays judgeHandover reads a component's delays
// into: ten thousand per component on a fleet, every cycle, read once.
var delayBuffers = sync.Pool{New: func() any { return new([]float64) }}

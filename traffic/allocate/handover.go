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
// The prices are mean response times (wait and service) of M/M/c queues:
// a split that sends more to slow pods costs their longer service too.
// Least-request, inside a node under a table or over every pod without
// one, lies between two limits. Where a sidecar's counts tell the two pods
// it drew apart, it keeps their queues even, as one queue pooled over the
// pods would. Where they do not (a sidecar with as many requests in flight
// to both, typically none, keeps the first it drew), the pick is blind:
// every pod gets the same part whatever its speed, and is its own queue,
// as Envoy's P2C gives. The informed fraction is the chance that the two
// pods drawn are distinct and that the sidecar's counts to them differ,
// each count Poisson with mean q = requests in flight ÷ (calling sidecars
// × pods). Many callers or few requests in flight make the counts thin,
// and least-request close to blind, with or without a table; a table also
// narrows the sidecars that send to each node, which thickens their counts
// there.
//
// The pooled limit is generous to least-request, which two informed
// choices do not reach. The error leans toward handing over, on purpose: a
// wrong handover costs at most the network time the table would have
// saved, a wrong table costs queueing that grows without bound as the
// nodes fill. Where the blind picks alone would overload a slow pod, the
// table, which splits by capacity, is kept.
//
// A table also fixes which of its callees' queues each request joins,
// where they run under tables of their own; that is priced too, below
// each caller, and callees are judged first (callees.go).
//
// A component whose rule says ROUND_ROBIN or RANDOM (traffic.PickBlind)
// has no per-request balancing to hand over to: its callers' picks are
// blind inside a locality under the table and over every pod without it,
// so both prices are the blind limit's, and without a table each node
// gets a part in proportion to its pods, not to its capacity. A split by
// capacity then beats the even one wherever the pods' speeds differ, and
// a table that overloads no pod is handed over only where the nodes are
// alike.
//
// Proxyless gRPC honours locality weights only under ROUND_ROBIN; its
// least-request has no locality layer. Where the table is written with
// ROUND_ROBIN of its own (traffic.Component.RoundRobinUnderTable), the
// table is priced with blind picks inside each node and the handover with
// the callers' least-request over every pod, which is what they get back.

// handover is the verdict for one component.
type handover struct {
	// envoy is true when the component is left to Envoy.
	envoy bool
	// savingMs is the network time per request (both ways) the table saves
	// against least-request's spread; queueingMs the mean response time
	// (queueing and service) it adds, negative where it saves some, of
	// which frozenMs in its callees' queues (callees.go).
	savingMs, queueingMs, frozenMs float64
	// spreadCost is least-request's Σ traffic × one-way delay, the route's
	// Cost when it is left to Envoy.
	spreadCost float64
	// why explains a table kept without pricing (missing data, a group not
	// Healthy); empty when the prices decided.
	why string
	// blind is true when the callers' own picks are blind (PickBlind),
	// tableBlind when their picks inside a node under the table are.
	blind, tableBlind bool
	// fullPod is true when a pod the table would feed ran at its CPU
	// limit, so the table was not priced (fullpods.go).
	fullPod bool
	// held explains a verdict in force kept against the prices
	// (hysteresis.go); empty when the prices decided.
	held string
	// prices are the response times the verdict weighed (zero when why
	// is set); the component's callers read them (callees.go).
	prices prices
}

// judgeHandover prices route r, whose Groups carry the shares the table
// would give, against the callers' own spread of the same traffic (by
// least-request, or blind: x.Pick); callersOn counts the calling sidecars
// on each node. What the table freezes in the component's callees is
// priced after, callees first (withCallees).
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
	blind := x.Pick(r.Component) == traffic.PickBlind
	tableBlind := x.TablePick(r.Component) == traffic.PickBlind
	shares := tableShares(r)
	p := priceTable(r, shares, groups, podRates, lambda, callersOn, tableBlind, blind)
	queueingMs := p.queueingMs(blind)
	spread := ownSpreadCost(x, supplies, groups, ownParts(podRates, blind))
	savingMs := 2 * (spread - r.Cost)
	full := !blind && !math.IsInf(queueingMs, -1) && feedsFullPod(shares, groups)
	if full {
		queueingMs = math.Inf(1) // not priced: fullpods.go
	}
	return handover{envoy: savingMs <= queueingMs, savingMs: savingMs, queueingMs: queueingMs, spreadCost: spread, blind: blind, tableBlind: tableBlind, fullPod: full, prices: p}
}

// withCallees adds to the table's price what it freezes in the callees'
// queues (callees.go), at the part of the callers' picks their counts,
// holding each request through its calls below, would steer.
func (h handover) withCallees(below calleeLoad) handover {
	if h.why != "" || h.blind || h.prices.saturated || math.IsInf(h.queueingMs, 0) {
		// Unpriced, no per-request balancing to hand over to, or decided
		// by an overload either way.
		return h
	}
	informed := informedFraction(h.prices.lambda, h.prices.rates, h.prices.callers, below.heldSeconds)
	h.frozenMs = below.frozenMs(informed)
	h.queueingMs += h.frozenMs
	h.envoy = h.savingMs <= h.queueingMs
	return h
}

// prices are a component's mean response times, in seconds, three ways:
// under the table, under the callers' own picks over every pod, and with
// every pod pooled in one queue; and what they were priced on.
type prices struct {
	table, own, pooled float64
	// saturated is true when even the pooled pods cannot serve the load.
	saturated bool
	// lambda is the request rate, rates every pod's service rate, callers
	// the calling sidecars.
	lambda  float64
	rates   []float64
	callers int
}

// tableShares is the share route r's table gives each node.
func tableShares(r traffic.Route) map[string]float64 {
	shares := make(map[string]float64, len(r.Groups))
	for _, g := range r.Groups {
		shares[g.Node] = g.Share
	}
	return shares
}

// priceTable prices the table of route r, whose shares per node are
// shares, under which the callers' picks inside a node are blind or not
// (tableBlind), and the callers' own picks over every pod (blind or not).
func priceTable(r traffic.Route, shares map[string]float64, groups []traffic.Group, podRates [][]float64, lambda float64, callersOn map[string]int, tableBlind, blind bool) prices {
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
	p := prices{lambda: lambda, callers: allCallers}
	for i, g := range groups {
		p.rates = append(p.rates, podRates[i]...)
		if s := shares[g.Node]; s > 0 {
			w, _ := ownResponse(s*lambda, podRates[i], callersTo[g.Node], tableBlind)
			p.table += s * w
		}
	}
	p.own, p.saturated = ownResponse(lambda, p.rates, allCallers, blind)
	p.pooled = pooledResponse(lambda, p.rates)
	return p
}

// queueingMs is the mean response time (queueing and service) the table
// adds against the callers' own picks over every pod, negative where it
// saves some; +Inf where only per-request balancing can spread the load,
// -Inf where the callers' own spread overloads a pod and the table does
// not.
func (p prices) queueingMs(blind bool) float64 {
	switch {
	case p.saturated || math.IsInf(p.table, 1) && !blind:
		// Saturated whatever the split, or by the table's: only per-request
		// balancing spreads the excess by each pod's speed.
		return math.Inf(1)
	case math.IsInf(p.own, 1):
		// The callers' own spread overloads a pod: blind picks land on
		// every pod alike, and where the table overloads one too, its split
		// by capacity spreads the excess better than theirs.
		return math.Inf(-1)
	case math.IsInf(p.table, 1):
		return math.Inf(1)
	}
	return 1000 * (p.table - p.own)
}

// ownParts weighs each group's part of the callers' own spread: its
// capacity under least-request, its pods under blind picks.
func ownParts(podRates [][]float64, blind bool) []float64 {
	parts := make([]float64, len(podRates))
	for i, rates := range podRates {
		if blind {
			parts[i] = float64(len(rates))
			continue
		}
		for _, mu := range rates {
			parts[i] += mu
		}
	}
	return parts
}

// ownSpreadCost is Σ traffic × one-way delay when every caller sends each
// group a part of its traffic in proportion to parts: the route's Cost
// when the component is left to the callers' own balancing.
func ownSpreadCost(x *traffic.Index, supplies []traffic.Amount, groups []traffic.Group, parts []float64) float64 {
	total := 0.0
	for _, p := range parts {
		total += p
	}
	at := make([]traffic.Amount, len(groups))
	for i, g := range groups {
		at[i].Node = g.Node
	}
	buf := delayBuffers.Get().(*[]float64)
	defer delayBuffers.Put(buf)
	*buf = x.DelayMatrix(*buf, supplies, at)
	delays := *buf
	spread := 0.0
	for k, s := range supplies {
		for i := range groups {
			if d := delays[k*len(groups)+i]; !math.IsNaN(d) {
				spread += s.Value * parts[i] / total * d
			}
		}
	}
	return spread
}

// ownResponse is the mean response time when the callers spread lambda
// requests per second over pods of the given service rates by their own
// picks: least-request's (leastRequestResponse), or blind ones, where every
// pod gets the same part and saturated stays false (+Inf then means a pod
// is overloaded).
func ownResponse(lambda float64, rates []float64, callers int, blind bool) (seconds float64, saturated bool) {
	if !blind {
		return leastRequestResponse(lambda, rates, callers)
	}
	return blindResponse(lambda, rates, capacityOf(rates), 0), false
}

// leastRequestResponse is the mean response time when callers sidecars
// spread lambda requests per second over pods of the given service rates
// by least-request: between the pooled and the blind limit by the informed
// fraction (see above). saturated is true when even the pooled limit
// cannot serve lambda; the time is +Inf then, and also when only the blind
// picks cannot.
func leastRequestResponse(lambda float64, rates []float64, callers int) (seconds float64, saturated bool) {
	pooled := pooledResponse(lambda, rates)
	if math.IsInf(pooled, 1) {
		return pooled, true
	}
	// The counts tell pods' own queues apart only by the requests they
	// hold there, each for its own response: what a request spends
	// downstream thickens the counts with waits that are not the pod's
	// queue (callees.go prices those).
	informed := informedFraction(lambda, rates, callers, 0)
	// Blind picks land on every pod alike, each pod its own queue, loaded
	// by the informed picks in proportion to capacity and by the blind
	// ones evenly.
	blind := blindResponse(lambda, rates, capacityOf(rates), informed)
	return informed*pooled + (1-informed)*blind, false
}

// informedFraction is the part of the callers' picks whose two draws their
// counts tell apart: the chance that the pods differ and that their counts
// do, each count Poisson with the requests in flight (Little's law, each
// held for its response on the uniform split every blind pick makes, and
// heldSeconds more) per caller–pod pair. Where that split overloads a pod,
// its counts are thick and never tie.
func informedFraction(lambda float64, rates []float64, callers int, heldSeconds float64) float64 {
	k := float64(len(rates))
	q := lambda * (blindResponse(lambda, rates, capacityOf(rates), 0) + heldSeconds) / (float64(max(callers, 1)) * k)
	return (1 - 1/k) * (1 - queueing.TieProbability(q))
}

// pooledResponse is the mean response time of the pods pooled in one
// queue of their mean speed: least-request's limit where every pick is
// informed. +Inf when they cannot serve lambda.
func pooledResponse(lambda float64, rates []float64) float64 {
	k := float64(len(rates))
	capacity := capacityOf(rates)
	return queueing.MeanWait(len(rates), lambda, capacity/k) + k/capacity
}

// capacityOf is the requests per second the pods serve together.
func capacityOf(rates []float64) float64 {
	capacity := 0.0
	for _, mu := range rates {
		capacity += mu
	}
	return capacity
}

// blindResponse is the mean response time of a request sent to a pod
// drawn uniformly, when pod i serves λ·(informed·μᵢ/capacity + (1 −
// informed)/k) in a queue of its own. +Inf when that overloads a pod.
func blindResponse(lambda float64, rates []float64, capacity, informed float64) float64 {
	k := float64(len(rates))
	sum := 0.0
	for _, mu := range rates {
		part := informed*mu/capacity + (1-informed)/k
		sum += (queueing.MeanWait(1, lambda*part, mu) + 1/mu) / k
	}
	return sum
}

// serviceRates measures a component: the request rate it serves, and per
// group the requests per second each pod can serve (its CPU limit over the
// group's CPU seconds per request, the component's where the group has
// served nothing yet). ok is false when the rate or every group's cost is
// unknown.
func serviceRates(groups []traffic.Group) (lambda float64, podRates [][]float64, ok bool) {
	lambda = requestRate(groups)
	if math.IsNaN(lambda) {
		return 0, nil, false
	}
	var cpu, served float64
	for _, g := range groups {
		for _, r := range g.Replicas {
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
	case h.held != "" && h.envoy:
		return "left to " + h.ownBalancing() + ": " + h.held
	case h.held != "":
		return "table written: " + h.held
	case h.envoy:
		return fmt.Sprintf("left to %s: the table would save %.2f ms of network per request and %s", h.ownBalancing(), h.savingMs, h.queueingPhrase("would save", "would add"))
	default:
		return fmt.Sprintf("table written: it saves %.2f ms of network per request and %s", h.savingMs, h.queueingPhrase("saves", "adds"))
	}
}

// ownBalancing names what carries a component left without a table.
func (h handover) ownBalancing() string {
	switch {
	case h.blind:
		return "the sidecars' blind picks (ROUND_ROBIN or RANDOM)"
	case h.tableBlind:
		return "the clients' least-request over every pod (the table's ROUND_ROBIN lifted)"
	}
	return "Envoy's least-request"
}

// queueingPhrase says what the table does to queueing and service.
func (h handover) queueingPhrase(save, add string) string {
	switch {
	case h.fullPod:
		return "a pod it would feed ran at its CPU limit, with a queue no steady price sees"
	case math.IsInf(h.queueingMs, -1) && h.blind:
		return "spares the blind picks' even split, which would overload a slow pod"
	case math.IsInf(h.queueingMs, -1):
		return "spares least-request's blind split, which would overload a slow pod"
	case h.queueingMs < 0:
		return fmt.Sprintf("%s %.2f ms of queueing and service%s", save, -h.queueingMs, h.frozenPhrase())
	default:
		return fmt.Sprintf("%s %.2f ms of queueing and service%s", add, h.queueingMs, h.frozenPhrase())
	}
}

// frozenPhrase says how much of the price is the callees' queues the table
// would hold apart.
func (h handover) frozenPhrase() string {
	if h.frozenMs == 0 {
		return ""
	}
	return fmt.Sprintf(", %.2f ms of it in its callees' queues, which its callers' counts would even out", h.frozenMs)
}

// delayBuffers keeps the arrays judgeHandover reads a component's delays
// into: ten thousand per component on a fleet, every cycle, read once.
var delayBuffers = sync.Pool{New: func() any { return new([]float64) }}

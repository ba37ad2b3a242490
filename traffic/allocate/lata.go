package allocate

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/flow"
)

// lataScratch is one LATA solve's working arrays, kept for the next.
type lataScratch struct {
	delays []float64
	lanes  []flow.Lane
	flows  []float64
}

var lataScratches = sync.Pool{New: func() any { return new(lataScratch) }}

// lataRoute is LATA's per-replica minimum-cost flow: each upstream replica
// supplies its node's part of the traffic split equally among the upstream
// replicas there, each downstream replica demands an equal share, and every
// replica pair is a link costing its nodes' delay (an unmeasured link costs
// the worst measured delay). It has A×B links where HEART has nodes×nodes,
// which is why it is kept: as a baseline, and to measure that difference.
func lataRoute(x *traffic.Index, component string) (traffic.Route, bool, error) {
	groups, supplies, ok := problem(x, component)
	if !ok {
		return traffic.Route{}, false, nil
	}
	ups, downs := lataReplicas(x, component, supplies, groups)
	supply, demand := make([]float64, len(ups)), make([]float64, len(downs))
	for i, u := range ups {
		supply[i] = u.amount
	}
	for j, d := range downs {
		demand[j] = d.amount
	}
	// Delays read once per node pair, a row at a time, and working arrays
	// reused between components, as HEART's NTAM does: the comparison is
	// of the formulations, not of lookups or the garbage collector.
	ws := lataScratches.Get().(*lataScratch)
	defer lataScratches.Put(ws)
	lanes := ws.buildLanes(x, supplies, groups, ups, downs)
	ws.flows = slices.Grow(ws.flows[:0], len(lanes))[:len(lanes)]
	flows := ws.flows
	if _, err := flow.TransportInto(flows, supply, demand, lanes); err != nil {
		return traffic.Route{}, false, fmt.Errorf("LATA min-cost flow: %w", err)
	}
	byNode := make(map[string]map[string]float64)
	for k, l := range lanes {
		if f := flows[k]; f > 0 {
			from := supplies[ups[l.From].at].Node
			if byNode[from] == nil {
				byNode[from] = make(map[string]float64)
			}
			byNode[from][groups[downs[l.To].at].Node] += f
		}
	}
	r := traffic.Route{Component: component}
	for _, s := range supplies {
		var to []traffic.Amount
		for node, f := range byNode[s.Node] {
			to = append(to, traffic.Amount{Node: node, Value: f})
		}
		src := traffic.Source{Node: s.Node, Supply: s.Value, To: traffic.Normalize(to)}
		if src.To == nil {
			continue // a zero supply, or one too small to carry flow, sends nothing, as in NTAM
		}
		r.Sources = append(r.Sources, src)
	}
	finish(x, &r, groups)
	return r, true, nil
}

// lataRep is a replica of LATA's problem: its node's index in supplies
// (upstream) or groups (downstream), and the amount it sends or receives.
type lataRep struct {
	at     int
	amount float64
}

// lataReplicas lists the upstream replicas, each sending its node's part
// of the traffic split equally among the node's upstream replicas, and the
// downstream ones, each receiving an equal share.
func lataReplicas(x *traffic.Index, component string, supplies []traffic.Amount, groups []traffic.Group) (ups, downs []lataRep) {
	here := make(map[string]int) // upstream replicas per node
	for _, u := range x.Upstreams(component) {
		for _, g := range x.Groups(u) {
			here[g.Node] += len(g.Replicas)
		}
	}
	for i, s := range supplies {
		for range here[s.Node] {
			ups = append(ups, lataRep{i, s.Value / float64(here[s.Node])})
		}
	}
	n := 0
	for _, g := range groups {
		n += len(g.Replicas)
	}
	for j, g := range groups {
		for range g.Replicas {
			downs = append(downs, lataRep{j, 1 / float64(n)})
		}
	}
	return ups, downs
}

// buildLanes is every upstream–downstream replica pair, costing its nodes'
// delay; an unmeasured pair costs the worst measured delay between
// distinct nodes (1 ms when none is measured).
func (ws *lataScratch) buildLanes(x *traffic.Index, supplies []traffic.Amount, groups []traffic.Group, ups, downs []lataRep) []flow.Lane {
	groupNodes := make([]traffic.Amount, len(groups))
	for j, g := range groups {
		groupNodes[j].Node = g.Node
	}
	ng := len(groups)
	ws.delays = x.DelayMatrix(ws.delays, supplies, groupNodes)
	worst, known := 0.0, false
	for i, s := range supplies {
		for j, d := range ws.delays[i*ng : (i+1)*ng] {
			if !math.IsNaN(d) && s.Node != groups[j].Node {
				worst, known = max(worst, d), true
			}
		}
	}
	if !known {
		worst = 1
	}
	lanes := ws.lanes[:0]
	for i, u := range ups {
		row := ws.delays[u.at*ng : (u.at+1)*ng]
		for j, d := range downs {
			c := row[d.at]
			if math.IsNaN(c) {
				c = worst
			}
			lanes = append(lanes, flow.Lane{From: int32(i), To: int32(j), Cost: c})
		}
	}
	ws.lanes = lanes
	return lanes
}

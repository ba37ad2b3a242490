package flow

import (
	"container/heap"
	"errors"
	"math"
)

// ErrInfeasible reports supplies that the network cannot deliver to the
// demands.
var ErrInfeasible = errors.New("the links cannot carry every supply to its demand")

// ErrNegativeCost reports an arc with a negative cost, which successive
// shortest paths with zero initial potentials does not support.
var ErrNegativeCost = errors.New("arc costs must be non-negative")

// MinCostFlow sends exactly amount units from s to t at the least total
// cost, by successive shortest paths: Dijkstra over reduced costs with
// Johnson potentials (J. Edmonds and R. M. Karp, JACM 19(2), 1972), each path
// augmented by its bottleneck. Arc costs must be non-negative. It returns the
// total cost and leaves the flow on each arc; ErrInfeasible when less than
// amount can be sent (the flow sent so far stays in the network).
func (g *Network) MinCostFlow(s, t int, amount float64) (float64, error) {
	for i := 0; i < len(g.arcs); i += 2 {
		if g.arcs[i].cost < 0 {
			return 0, ErrNegativeCost
		}
	}
	n := len(g.adj)
	potential := make([]float64, n)
	dist := make([]float64, n)
	prevArc := make([]int, n)
	done := make([]bool, n)
	pq := &distQueue{}
	remaining := amount
	total := 0.0
	for remaining > Epsilon*max(1, amount) {
		for i := range dist {
			dist[i] = math.Inf(1)
			prevArc[i] = -1
			done[i] = false
		}
		dist[s] = 0
		*pq = (*pq)[:0]
		heap.Push(pq, distItem{s, 0})
		for pq.Len() > 0 {
			it := heap.Pop(pq).(distItem)
			u := it.node
			if done[u] {
				continue
			}
			done[u] = true
			for _, id := range g.adj[u] {
				a := &g.arcs[id]
				if a.capacity <= Epsilon {
					continue
				}
				// Reduced costs are ≥ 0 up to rounding; clamp the rounding.
				rc := max(a.cost+potential[u]-potential[a.to], 0)
				if nd := dist[u] + rc; nd < dist[a.to] {
					dist[a.to] = nd
					prevArc[a.to] = id
					heap.Push(pq, distItem{a.to, nd})
				}
			}
		}
		if math.IsInf(dist[t], 1) {
			return total, ErrInfeasible
		}
		for v := range potential {
			if !math.IsInf(dist[v], 1) {
				potential[v] += dist[v]
			}
		}
		push := remaining
		for v := t; v != s; v = g.arcs[prevArc[v]^1].to {
			push = min(push, g.arcs[prevArc[v]].capacity)
		}
		for v := t; v != s; v = g.arcs[prevArc[v]^1].to {
			id := prevArc[v]
			g.arcs[id].capacity -= push
			g.arcs[id^1].capacity += push
			total += push * g.arcs[id].cost
		}
		remaining -= push
	}
	return total, nil
}

type distItem struct {
	node int
	dist float64
}

// distQueue is a binary min-heap on distance; ties broken by node number so
// the search order, and so the result, is deterministic.
type distQueue []distItem

func (q distQueue) Len() int { return len(q) }
func (q distQueue) Less(i, j int) bool {
	if q[i].dist != q[j].dist {
		return q[i].dist < q[j].dist
	}
	return q[i].node < q[j].node
}
func (q distQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *distQueue) Push(x any)   { *q = append(*q, x.(distItem)) }
func (q *distQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

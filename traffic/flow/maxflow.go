package flow

import "math"

// MaxFlow pushes as much flow from s to t as the capacities allow and returns
// its value, using Dinic's algorithm (E. A. Dinic, "Algorithm for solution of
// a problem of maximum flow in a network with power estimation", Soviet Math.
// Doklady 11, 1970): breadth-first levels, then blocking flows along
// level-increasing paths. The flow on each arc is left in the network.
// A path of unbounded arcs from s to t makes the maximum Inf.
func (g *Network) MaxFlow(s, t int) float64 {
	if s == t {
		return 0
	}
	n := g.nodes
	g.level, g.next = grow(g.level, n), grow(g.next, n)
	g.queue = grow(g.queue, n)[:0]
	level, next, queue := g.level, g.next, g.queue
	total := 0.0
	for g.levels(s, t, level, queue) {
		for i := range next {
			next[i] = 0
		}
		for {
			pushed := g.blockingPush(s, t, Inf, level, next)
			if math.IsInf(pushed, 1) {
				return Inf // a path of unbounded arcs: no maximum
			}
			if pushed <= Epsilon {
				break
			}
			total += pushed
		}
	}
	return total
}

// levels labels nodes by BFS distance from s over arcs with residual
// capacity and reports whether t is reachable.
func (g *Network) levels(s, t int, level, queue []int) bool {
	for i := range level {
		level[i] = -1
	}
	level[s] = 0
	queue = append(queue[:0], s)
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, id := range g.adj(u) {
			a := &g.arcs[id]
			if a.capacity > Epsilon && level[a.to] < 0 {
				level[a.to] = level[u] + 1
				queue = append(queue, a.to)
			}
		}
	}
	return level[t] >= 0
}

// blockingPush sends up to limit units from u to t along level-increasing
// paths by depth-first search, as much as it can in one walk: an arc keeps
// its place in next[u] while it has capacity left, and is passed over for
// good once it is saturated or leads nowhere. Pushing one path per walk,
// each walk starting again from s, cost a zoned component's feasibility
// checks half their time.
func (g *Network) blockingPush(u, t int, limit float64, level, next []int) float64 {
	if u == t {
		return limit
	}
	sent := 0.0
	for out := g.adj(u); next[u] < len(out); next[u]++ {
		id := out[next[u]]
		a := &g.arcs[id]
		if a.capacity <= Epsilon || level[a.to] != level[u]+1 {
			continue
		}
		pushed := g.blockingPush(a.to, t, min(limit-sent, a.capacity), level, next)
		if pushed > Epsilon {
			a.capacity -= pushed
			g.arcs[id^1].capacity += pushed
			sent += pushed
			if limit-sent <= Epsilon {
				return sent // the arc may have capacity left: keep its place
			}
		}
	}
	return sent
}

package flow

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// ErrInfeasible reports supplies that the network cannot deliver to the
// demands.
var ErrInfeasible = errors.New("the links cannot carry every supply to its demand")

// ErrCostTooLarge reports an arc whose cost leaves the simplex no room to
// price: its artificial arcs must cost more than any path of real ones, and
// potentials and reduced costs must stay finite.
var ErrCostTooLarge = errors.New("an arc's cost is too large to price")

// checkCostRange refuses a largest cost that would make the artificial
// arcs' cost, (maxCost + 1) × nodes, overflow once potentials add up: past
// that the simplex compares infinities and reports a feasible problem as
// infeasible. A delay in milliseconds would have to pass 1e300 to be
// refused.
func checkCostRange(maxCost float64, nodes int) error {
	if !((maxCost+1)*float64(nodes+1) < math.MaxFloat64/8) {
		return fmt.Errorf("largest cost %v over %d nodes: %w", maxCost, nodes, ErrCostTooLarge)
	}
	return nil
}

// ErrNegativeCost reports an arc with a negative cost. The allocators' costs
// are delays, so a negative one is a bug upstream, not a problem to solve.
var ErrNegativeCost = errors.New("arc costs must be non-negative")

// MinCostFlow sends exactly amount units from s to t at the least total
// cost and returns that cost, leaving the flow on each arc (read it with
// Flow). It uses the primal network simplex method with a strongly feasible
// spanning tree (W. H. Cunningham, Math. Programming 11, 1976), which never
// cycles on the degenerate pivots transportation problems are full of, and
// block-search pricing, the rule LEMON's NetworkSimplex found fastest
// (Kovács, "Minimum-cost flow algorithms: an experimental evaluation",
// Optimization Methods and Software 30(1), 2015). On the allocators'
// bipartite networks it makes a few pivots per node where successive
// shortest paths ran one Dijkstra per augmenting path.
//
// Arc costs must be non-negative. ErrInfeasible means less than amount can
// reach t; the network is then left without flow, never half-routed.
func (g *Network) MinCostFlow(s, t int, amount float64) (float64, error) {
	for i := 0; i < len(g.arcs); i += 2 {
		if g.arcs[i].cost < 0 {
			return 0, ErrNegativeCost
		}
	}
	g.Reset()
	if s == t || !(amount > Epsilon) {
		return 0, nil
	}
	supplies := make([]float64, g.nodes)
	supplies[s], supplies[t] = amount, -amount
	return g.solveSimplex(supplies, amount)
}

func (g *Network) solveSimplex(supplies []float64, amount float64) (float64, error) {
	ns := newSimplex(g, supplies)
	defer ns.release()
	if err := checkCostRange(ns.maxCost, ns.n); err != nil {
		return 0, err
	}
	ns.crash(supplies)
	ns.solve()
	if ns.infeasible(amount) {
		return 0, ErrInfeasible
	}
	total := 0.0
	for k := range ns.m {
		f := min(max(ns.flow[k], 0), g.arcs[2*k].original)
		g.arcs[2*k].capacity = g.arcs[2*k].original - f
		g.arcs[2*k+1].capacity = f
		total += f * g.arcs[2*k].cost
	}
	return total, nil
}

// feasibilityTolerance is the flow, relative to the amount, that may be left
// on artificial arcs by rounding without calling the problem infeasible.
const feasibilityTolerance = 1e-9

// Arc states: a non-tree arc sits at its lower or upper bound. The values
// are signs: state × reduced cost < 0 marks an arc whose entry lowers the
// cost.
const (
	atUpper int8 = -1
	inTree  int8 = 0
	atLower int8 = 1
)

// simplex is the working state: the network's forward arcs (0…m−1), one
// artificial arc per node (m+u) joining it to an extra root node n, and the
// spanning tree stored as parent pointers with child lists, so that moving
// a subtree costs time in its size only.
type simplex struct {
	n, m     int
	src, dst []int32
	capacity []float64
	cost     []float64
	flow     []float64
	state    []int8

	pi     []float64
	parent []int32
	pred   []int32 // the tree arc joining a node to its parent
	up     []bool  // pred runs child → parent
	depth  []int32
	child  []int32 // first child, −1 if none
	next   []int32 // next sibling, −1 at the end
	prev   []int32 // previous sibling, −1 for a first child
	// The crash start's index of arcs by tail, and the supply it has left
	// to place; kept for the next problem like the rest.
	tailStart, byTail, tailFill []int32
	remaining                   []float64
	// balance is Transport's supplies and demands as one array.
	balance []float64

	// priced is how many real arcs, from the first, pricing scans: all
	// of them, except while Transport solves on its core lanes first.
	priced int
	// laneOf is Transport's lane for each real arc, core lanes first;
	// the others are its scratch for choosing them (core.go).
	laneOf            []int32
	cheapest, held    []int32
	cheapestCost, bar []float64
	inCore            []bool
	// violator is priceRest's most improving lane outside the core for
	// each end (−1 if none), and violation its reduced cost.
	violator  []int32
	violation []float64

	// maxCost is the largest real arc's cost: artificial arcs cost more
	// than any path of real arcs.
	maxCost float64

	costEps  float64
	block    int
	nextScan int
}

func newSimplex(g *Network, supplies []float64) *simplex {
	n, m := g.nodes, len(g.arcs)/2
	ns := workspaces.Get().(*simplex)
	ns.size(n, m)
	ns.maxCost = 0
	for k := range m {
		a, twin := g.arcs[2*k], g.arcs[2*k+1]
		ns.src[k], ns.dst[k] = int32(twin.to), int32(a.to)
		ns.capacity[k], ns.cost[k] = a.original, a.cost
		ns.maxCost = max(ns.maxCost, a.cost)
	}
	ns.start(supplies)
	return ns
}

// workspaces keeps simplex states between solves: an allocator solves one
// problem per component every cycle, and reusing the arrays spares the
// allocation and the garbage collector's scan of a few hundred kilobytes
// per problem.
var workspaces = sync.Pool{New: func() any { return new(simplex) }}

// release returns the state to the pool; the caller must not use it after.
func (ns *simplex) release() { workspaces.Put(ns) }

// size makes room for n nodes and m real arcs (plus one artificial arc per
// node), reusing the arrays when they are large enough. Flows start at
// zero; an arc's ends, capacity, cost and state are its loader's and
// start's to write.
func (ns *simplex) size(n, m int) {
	ns.n, ns.m, ns.priced = n, m, m
	ns.src, ns.dst = grow(ns.src, m+n), grow(ns.dst, m+n)
	ns.capacity, ns.cost, ns.flow = grow(ns.capacity, m+n), grow(ns.cost, m+n), resize(ns.flow, m+n)
	ns.state = grow(ns.state, m+n)
	ns.pi, ns.parent, ns.pred = resize(ns.pi, n+1), resize(ns.parent, n+1), resize(ns.pred, n+1)
	ns.up, ns.depth = resize(ns.up, n+1), resize(ns.depth, n+1)
	ns.child, ns.next, ns.prev = resize(ns.child, n+1), resize(ns.next, n+1), resize(ns.prev, n+1)
	ns.nextScan = 0
}

// grow returns s with length n, reusing its array when it can; the
// elements are left as they were.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// resize returns s with length n, zeroed, reusing its array when it can.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// start sets every priced arc at its lower bound and builds the initial
// tree of artificial arcs; src, dst, capacity and cost of the priced arcs
// must be filled, and maxCost set to the largest cost of any real arc,
// priced or not.
func (ns *simplex) start(supplies []float64) {
	n, m := ns.n, ns.m
	root := n
	for k := range ns.priced {
		ns.state[k] = atLower
	}
	maxCost := ns.maxCost
	// An artificial arc costs more than any path of real arcs, so the
	// optimum uses one only when no real path is left.
	artificial := (maxCost + 1) * float64(n)
	// Potentials reach about artificial; reduced costs below this many
	// units in the last place are rounding, not improvement.
	ns.costEps = 64 * (math.Nextafter(artificial, math.Inf(1)) - artificial)
	ns.child[root], ns.parent[root], ns.pred[root], ns.prev[root], ns.next[root] = -1, -1, -1, -1, -1
	prevChild := int32(-1)
	for u := range n {
		e := m + u
		supply := supplies[u]
		ns.capacity[e], ns.state[e] = math.Inf(1), inTree
		ns.parent[u], ns.pred[u], ns.depth[u], ns.child[u] = int32(root), int32(e), 1, -1
		// Every node starts as a child of the root, its artificial arc
		// pointing the way its supply flows: the initial tree is strongly
		// feasible (any node can push flow to the root).
		if supply >= 0 {
			ns.src[e], ns.dst[e], ns.flow[e], ns.up[u] = int32(u), int32(root), supply, true
			ns.cost[e] = 0
		} else {
			ns.src[e], ns.dst[e], ns.flow[e], ns.up[u] = int32(root), int32(u), -supply, false
			ns.cost[e], ns.pi[u] = artificial, artificial
		}
		ns.prev[u], ns.next[u] = prevChild, -1
		if prevChild >= 0 {
			ns.next[prevChild] = int32(u)
		} else {
			ns.child[root] = int32(u)
		}
		prevChild = int32(u)
	}
}

// infeasible reports supply left on an artificial arc: supply no real path
// took.
func (ns *simplex) infeasible(amount float64) bool {
	for u := range ns.n {
		if ns.flow[ns.m+u] > feasibilityTolerance*max(1, amount) {
			return true
		}
	}
	return false
}

// solve pivots until no arc's entry lowers the cost, pricing every real
// arc (artificial arcs never re-enter).
func (ns *simplex) solve() {
	ns.block = max(10, int(math.Sqrt(float64(ns.priced))))
	for {
		in := ns.entering()
		if in < 0 {
			return
		}
		ns.pivot(in)
	}
}

// crash pivots the least-cost greedy solution into the all-artificial
// starting tree before pricing begins. Each supply fills the cheapest
// demands its uncapacitated arcs reach directly, each step using up the
// supply or the demand: every supply's first step, then the rest of each
// in turn (on a transportation problem that is nearly the optimum); each
// step's arc then enters the basis by an ordinary pivot, if its
// reduced cost still says it lowers the cost. Because these are ordinary
// pivots, the tree stays strongly feasible, and supply the greedy could not
// place simply stays on artificial arcs for pricing to move. Starting from
// there, the simplex needs a few pivots per node instead of a few dozen, and
// each crash pivot is cheap: its cycle runs through the root and two nodes.
func (ns *simplex) crash(supplies []float64) {
	n, m := ns.n, ns.priced
	scale := 0.0
	for _, b := range supplies {
		scale += math.Abs(b)
	}
	eps := Epsilon * max(1, scale)
	// Arcs by tail, in one allocation.
	ns.tailStart = resize(ns.tailStart, n+1)
	start := ns.tailStart
	for e := range m {
		start[ns.src[e]+1]++
	}
	for u := range n {
		start[u+1] += start[u]
	}
	ns.byTail, ns.tailFill = resize(ns.byTail, m), resize(ns.tailFill, n)
	out, fill := ns.byTail, ns.tailFill
	copy(fill, start[:n])
	for e := range m {
		out[fill[ns.src[e]]] = int32(e)
		fill[ns.src[e]]++
	}
	ns.remaining = append(ns.remaining[:0], supplies...)
	rem := ns.remaining
	// Two rounds: first every supply takes only its cheapest step, then
	// each places the rest. In one round an early supply would take a
	// later one's cheapest demand (on the allocators' problems, its own
	// node's, at no cost) and push that supply onto dearer lanes.
	for round := range 2 {
		for u := range n {
			ns.crashSteps(u, rem, start, out, eps, round == 0)
		}
	}
}

// crashSteps places u's remaining supply on the cheapest lanes to demands
// still short, one step at a time (a single step when once is set),
// pivoting each step's arc into the tree.
func (ns *simplex) crashSteps(u int, rem []float64, start, out []int32, eps float64, once bool) {
	for rem[u] > eps {
		best := int32(-1)
		for _, e := range out[start[u]:start[u+1]] {
			if rem[ns.dst[e]] < -eps && math.IsInf(ns.capacity[e], 1) && (best < 0 || ns.cost[e] < ns.cost[best]) {
				best = e
			}
		}
		if best < 0 {
			return // the rest of u's supply is left to pricing
		}
		v := ns.dst[best]
		x := min(rem[u], -rem[v])
		rem[u] -= x
		rem[v] += x
		if ns.state[best] != inTree && float64(ns.state[best])*(ns.cost[best]+ns.pi[u]-ns.pi[v]) < -ns.costEps {
			ns.pivot(int(best))
		}
		if once {
			return
		}
	}
}

// entering scans the priced arcs block by block from where the last scan
// stopped and returns the most violating arc of the first block that has
// one, or −1 when none can enter.
func (ns *simplex) entering() int {
	best, bestArc, count := -ns.costEps, -1, ns.block
	m := ns.priced
	for k := range m {
		e := ns.nextScan + k
		if e >= m {
			e -= m
		}
		if c := float64(ns.state[e]) * (ns.cost[e] + ns.pi[ns.src[e]] - ns.pi[ns.dst[e]]); c < best {
			best, bestArc = c, e
		}
		if count--; count == 0 {
			if bestArc >= 0 {
				ns.nextScan = e
				return bestArc
			}
			count = ns.block
		}
	}
	return bestArc
}

// pivot brings arc in into the tree, pushes flow round the cycle it closes,
// and drops the leaving arc chosen so the tree stays strongly feasible.
func (ns *simplex) pivot(in int) {
	first, second := ns.src[in], ns.dst[in]
	if ns.state[in] == atUpper {
		first, second = second, first
	}
	join := ns.lca(first, second)

	// Flow goes down the tree from join to first, across in, and up from
	// second to join. Among equal bottlenecks the last one in that order
	// leaves: that keeps every zero-flow tree arc pointing away from the
	// root (Cunningham's rule).
	delta, leaving, side := ns.capacity[in], int32(-1), 0
	for u := first; u != join; u = ns.parent[u] {
		if d := ns.residual(u, false); d < delta {
			delta, leaving, side = d, u, 1
		}
	}
	for u := second; u != join; u = ns.parent[u] {
		if d := ns.residual(u, true); d <= delta {
			delta, leaving, side = d, u, 2
		}
	}
	if delta > 0 && !math.IsInf(delta, 1) {
		ns.flow[in] += float64(ns.state[in]) * delta
		for u := first; u != join; u = ns.parent[u] {
			ns.push(u, -delta)
		}
		for u := second; u != join; u = ns.parent[u] {
			ns.push(u, delta)
		}
	}
	if side == 0 {
		// The entering arc is its own bottleneck: it moves to its other
		// bound and the tree stays as it is.
		ns.state[in] = -ns.state[in]
		return
	}
	out := ns.pred[leaving]
	if ns.flow[out] > ns.capacity[out]/2 {
		ns.state[out] = atUpper
	} else {
		ns.state[out] = atLower
	}
	ns.state[in] = inTree
	inNode, outNode := first, second
	if side == 2 {
		inNode, outNode = second, first
	}
	ns.regraft(int32(in), inNode, outNode, leaving)
}

// residual is how much more can cross u's tree arc upwards (toward the
// root) or downwards.
func (ns *simplex) residual(u int32, upwards bool) float64 {
	e := ns.pred[u]
	if ns.up[u] == upwards {
		return max(ns.capacity[e]-ns.flow[e], 0)
	}
	return max(ns.flow[e], 0)
}

// push moves delta units up across u's tree arc (down when negative).
func (ns *simplex) push(u int32, delta float64) {
	if ns.up[u] {
		ns.flow[ns.pred[u]] += delta
	} else {
		ns.flow[ns.pred[u]] -= delta
	}
}

func (ns *simplex) lca(u, v int32) int32 {
	for u != v {
		switch {
		case ns.depth[u] > ns.depth[v]:
			u = ns.parent[u]
		case ns.depth[v] > ns.depth[u]:
			v = ns.parent[v]
		default:
			u, v = ns.parent[u], ns.parent[v]
		}
	}
	return u
}

// regraft cuts the subtree under leaving (which holds inNode), re-roots it
// at inNode, hangs it from outNode by the entering arc, and shifts its
// potentials and depths to match.
func (ns *simplex) regraft(in, inNode, outNode, leaving int32) {
	// Reverse the path inNode → … → leaving: each node becomes its old
	// parent's parent, joined by the same arc seen the other way.
	ns.detach(leaving)
	prevNode, prevArc, prevUp := outNode, in, ns.src[in] == inNode
	for u := inNode; ; {
		parent, arc, up := ns.parent[u], ns.pred[u], ns.up[u]
		if u != leaving {
			ns.detach(u)
		}
		ns.parent[u], ns.pred[u], ns.up[u] = prevNode, prevArc, prevUp
		ns.attach(u, prevNode)
		if u == leaving {
			break
		}
		prevNode, prevArc, prevUp = u, arc, !up
		u = parent
	}
	// The entering arc is now a tree arc: its reduced cost must be 0.
	want := ns.pi[outNode] + ns.cost[in]
	if ns.src[in] == inNode {
		want = ns.pi[outNode] - ns.cost[in]
	}
	sigma := want - ns.pi[inNode]
	// A preorder walk of the subtree by its child, sibling and parent
	// links: no stack to push to, and this loop is most of a pivot's time.
	pi, depth, parent, child, next := ns.pi, ns.depth, ns.parent, ns.child, ns.next
	for u := inNode; ; {
		pi[u] += sigma
		depth[u] = depth[parent[u]] + 1
		if c := child[u]; c >= 0 {
			u = c
			continue
		}
		for u != inNode && next[u] < 0 {
			u = parent[u]
		}
		if u == inNode {
			return
		}
		u = next[u]
	}
}

// detach removes u from its parent's child list.
func (ns *simplex) detach(u int32) {
	p := ns.parent[u]
	if ns.prev[u] >= 0 {
		ns.next[ns.prev[u]] = ns.next[u]
	} else {
		ns.child[p] = ns.next[u]
	}
	if ns.next[u] >= 0 {
		ns.prev[ns.next[u]] = ns.prev[u]
	}
	ns.prev[u], ns.next[u] = -1, -1
}

// attach makes u the first child of p.
func (ns *simplex) attach(u, p int32) {
	ns.prev[u], ns.next[u] = -1, ns.child[p]
	if ns.child[p] >= 0 {
		ns.prev[ns.child[p]] = u
	}
	ns.child[p] = u
}

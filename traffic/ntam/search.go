package ntam

import (
	"math"
	"math/bits"
	"slices"

	"github.com/artt-dev/artt/traffic/flow"
)

// keptUpTo returns the delay up to which slow links must stay so that
// every group's share stays deliverable, −Inf when every slow link can go.
// Links of equal delay stay or go together: nothing orders them
// (unmeasured links all cost the worst measured delay, for one), and
// removing some of them by their place in a list would be arbitrary.
//
// Removing the slowest first and stopping before the first removal that
// strands traffic keeps the shortest run of the fastest slow links that
// makes the traffic deliverable. So the search starts from the fast links
// alone and adds slow links from the fastest, one delay at a time, until
// the maximum flow carries all the traffic, each maximum flow carried on
// from the last (flow.Network.MaxFlow goes on from the flow in the
// network). It looks only once the links added since the last look could
// carry what is still short: each carries at most what its supply sends
// or its demand takes. The slow links are taken from a heap rather than
// sorted, since the search stops after the few it needs. In a cluster of
// zones the slow links are the thousands of links between zones, each
// with its own measured delay, and usually a few dozen must stay
// (BenchmarkLargestRemovable times this search beside the binary search
// over full maximum flows it replaced).
func keptUpTo(check *feasibility, p Problem, links *links, slow []int) float64 {
	newFeasibility(check, p, links, slow)
	value := check.g.MaxFlow(check.s, check.t)
	if value >= check.supplyFlow-tolerance {
		return math.Inf(-1)
	}
	fastest := &check.fastest
	fastest.links, fastest.heap = links, append(fastest.heap[:0], slow...)
	fastest.init()
	nu, nv := links.nu, links.nv
	check.touched = zeroed(check.touched, nu+nv)
	short := check.supplyFlow - value
	fromSupplies, toDemands := 0.0, 0.0
	scale := demandScale(p)
	kept := math.Inf(-1)
	for len(fastest.heap) > 0 {
		kept = links.delay[fastest.heap[0]]
		check.group = fastest.popFastest(check.group[:0])
		for _, k := range check.group {
			from, to := k/nv, nu+k%nv
			check.g.AddArc(from, to, flow.Inf, links.delay[k])
			if !check.touched[from] {
				check.touched[from] = true
				fromSupplies += p.Supplies[from].Value
			}
			if !check.touched[to] {
				check.touched[to] = true
				toDemands += p.Demands[to-nu].Value * scale
			}
		}
		// Whatever more the links added since the last look carry, each
		// carries at most what its supply sends or its demand takes, so
		// until those add up to what is short, looking cannot succeed.
		if min(fromSupplies, toDemands) < short-tolerance {
			continue
		}
		value += check.g.MaxFlow(check.s, check.t)
		if value >= check.supplyFlow-tolerance {
			break
		}
		short = check.supplyFlow - value
		clear(check.touched)
		fromSupplies, toDemands = 0, 0
	}
	return kept
}

// slowLinkHeap orders link numbers by delay, fastest on top, ties by link
// number.
type slowLinkHeap struct {
	links *links
	heap  []int
	top   []int // popFastest's positions of the fastest links
}

func (h *slowLinkHeap) less(a, b int) bool {
	da, db := h.links.delay[h.heap[a]], h.links.delay[h.heap[b]]
	return da < db || da == db && h.heap[a] < h.heap[b]
}

func (h *slowLinkHeap) init() {
	for i := len(h.heap)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// popFastest removes the links of the smallest delay from the heap and
// appends them to out. They sit at the top of the heap, as a subtree whose
// every node holds that delay, so they are found without looking further.
// A few are then popped one at a time, log n each; many are filtered out
// and the heap built again, n in all: ties come in groups of hundreds or
// thousands where few node pairs between zones are probed, since every
// unmeasured link costs the same worst measured delay.
func (h *slowLinkHeap) popFastest(out []int) []int {
	d := h.links.delay[h.heap[0]]
	h.top = append(h.top[:0], 0)
	for n := 0; n < len(h.top); n++ {
		for c := 2*h.top[n] + 1; c <= 2*h.top[n]+2 && c < len(h.heap); c++ {
			if h.links.delay[h.heap[c]] == d {
				h.top = append(h.top, c)
			}
		}
	}
	if len(h.top)*bits.Len(uint(len(h.heap))) < len(h.heap) {
		for range h.top {
			out = append(out, h.pop())
		}
		return out
	}
	for _, i := range h.top {
		out = append(out, h.heap[i])
		h.heap[i] = -1
	}
	h.heap = slices.DeleteFunc(h.heap, func(k int) bool { return k < 0 })
	h.init()
	return out
}

// pop removes and returns the fastest link.
func (h *slowLinkHeap) pop() int {
	top, last := h.heap[0], len(h.heap)-1
	h.heap[0] = h.heap[last]
	h.heap = h.heap[:last]
	h.down(0)
	return top
}

func (h *slowLinkHeap) down(i int) {
	for {
		smallest, l := i, 2*i+1
		if l < len(h.heap) && h.less(l, smallest) {
			smallest = l
		}
		if r := l + 1; r < len(h.heap) && h.less(r, smallest) {
			smallest = r
		}
		if smallest == i {
			return
		}
		h.heap[i], h.heap[smallest] = h.heap[smallest], h.heap[i]
		i = smallest
	}
}

// feasibility is the max-flow check, source → upstream → downstream →
// sink: can the links carry all the traffic?
type feasibility struct {
	g          *flow.Network
	s, t       int
	supplyFlow float64
	left       []bool // the links newFeasibility left out
	// unbalancedWithout's parts and their supply less demand.
	part    []int32
	balance []float64
	// keptUpTo's working state, kept for the next search.
	fastest slowLinkHeap
	touched []bool // the supplies and demands of the links added since the last look
	group   []int  // the links of one delay, added together
}

// newFeasibility builds the check for a problem's links, all but those
// left out, in f, reusing its network and arrays (a zoned cluster's
// components build one every cycle).
func newFeasibility(f *feasibility, p Problem, links *links, leaveOut []int) *feasibility {
	nu, nv := len(p.Supplies), len(p.Demands)
	if f.g == nil {
		f.g = flow.NewNetworkSized(nu+nv+2, nu+nv+len(links.delay))
	}
	f.g.Rebuild(nu + nv + 2)
	f.s, f.t, f.supplyFlow = nu+nv, nu+nv+1, total(p.Supplies)
	for i, a := range p.Supplies {
		f.g.AddArc(f.s, i, a.Value, 0)
	}
	scale := demandScale(p)
	for j, a := range p.Demands {
		f.g.AddArc(nu+j, f.t, a.Value*scale, 0)
	}
	f.left = zeroed(f.left, len(links.delay))
	for _, k := range leaveOut {
		f.left[k] = true
	}
	for k := range links.delay {
		if !f.left[k] {
			f.g.AddArc(k/nv, nu+k%nv, flow.Inf, links.delay[k])
		}
	}
	return f
}

// unbalancedWithout reports whether the links not dropped split the
// supplies and demands into parts that are not joined by any link and one
// of which holds more supply than demand: then no routing over those links
// delivers every share, and no flow need be tried. A union–find over the
// links, stopped once they join everything.
func (f *feasibility) unbalancedWithout(p Problem, links *links, dropped []bool) bool {
	nu, nv := links.nu, links.nv
	f.part = slices.Grow(f.part[:0], nu+nv)[:nu+nv]
	for u := range f.part {
		f.part[u] = int32(u)
	}
	parts := nu + nv
	for i := range nu {
		a := f.root(i)
		for j := range nv {
			// Once joined, a demand points straight at its part's root
			// (root halves paths), so most links cost one comparison.
			if dropped != nil && dropped[i*nv+j] || f.part[nu+j] == a {
				continue
			}
			if b := f.root(nu + j); b != a {
				f.part[b] = a
				if parts--; parts == 1 {
					return false
				}
			}
		}
	}
	f.balance = zeroed(f.balance, nu+nv)
	scale := demandScale(p)
	for i, a := range p.Supplies {
		f.balance[f.root(i)] += a.Value
	}
	for j, a := range p.Demands {
		f.balance[f.root(nu+j)] -= a.Value * scale
	}
	for _, b := range f.balance {
		if b > tolerance {
			return true
		}
	}
	return false
}

// root is u's part's representative, halving the path on the way.
func (f *feasibility) root(u int) int32 {
	for f.part[u] != int32(u) {
		f.part[u] = f.part[f.part[u]]
		u = int(f.part[u])
	}
	return int32(u)
}

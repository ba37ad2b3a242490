package larp

import (
	"fmt"
	"math"
)

// ExactMaxNodes bounds the instances Exact takes: it searches the
// assignments of groups to distinct nodes, whose number grows as
// nodes!/(nodes−groups)!.
const ExactMaxNodes = 12

// Exact places each application optimally: the integer program (each
// group on one distinct node with room, minimising the two-way delay summed
// over pairs of groups) solved by depth-first branch and bound. A partial
// assignment's cost only grows as groups are added (delays are ≥ 0), so a
// branch is cut as soon as it costs as much as the best complete one.
func Exact(p Problem) (Plan, error) {
	if len(p.Nodes) > ExactMaxNodes {
		return Plan{}, &FieldError{Field: "nodes", Value: len(p.Nodes), Reason: fmt.Sprintf("the exact solver takes at most %d nodes; use Greedy", ExactMaxNodes)}
	}
	return solve(p, exactAssign)
}

func exactAssign(groups []Group, free []Node, cost [][]float64) ([]int, error) {
	best := []int(nil)
	bestCost := math.Inf(1)
	at := make([]int, 0, len(groups))
	used := make([]bool, len(free))
	deepest, failure := -1, error(nil)
	var search func(i int, partial float64)
	search = func(i int, partial float64) {
		if partial >= bestCost {
			return
		}
		if i == len(groups) {
			best, bestCost = append([]int(nil), at...), partial
			return
		}
		placed := false
		for n := range free {
			if used[n] || !fits(groups[i], free[n]) {
				continue
			}
			added := 0.0
			for _, m := range at {
				added += cost[n][m]
			}
			placed = true
			used[n] = true
			at = append(at, n)
			search(i+1, partial+added)
			at = at[:len(at)-1]
			used[n] = false
		}
		if !placed && i > deepest {
			taken := map[int]bool{}
			for _, m := range at {
				taken[m] = true
			}
			deepest, failure = i, noRoom(i, groups[i], free, taken)
		}
	}
	search(0, 0)
	if best == nil {
		return nil, failure
	}
	return best, nil
}

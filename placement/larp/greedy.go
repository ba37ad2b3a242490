package larp

import "math"

// Greedy places each application by LARP's approximation: the most
// demanding group on a first node, then every other group, by demand, on
// the unused node with room and the lowest delay (both ways) to that first
// node. Every node is tried as the first, and the cheapest complete
// placement kept (the earliest node on a tie).
//
// Why this is within 2(k−1)/k of the optimum for k groups when the delays
// obey the triangle inequality and every node has room for any group: let
// S* be an optimal set of nodes, with cost OPT = Σ over its pairs of d, d
// the two-way delay. Summing D(v) = Σ_{w∈S*} d(v,w) over v ∈ S* counts
// every pair twice, so some v ∈ S* has D(v) ≤ 2·OPT/k. The try that starts
// at v picks the k−1 nodes nearest to v, so its set T has
// Σ_{u∈T} d(u,v) ≤ D(v). By the triangle inequality every pair u, w of T
// costs at most d(u,v) + d(v,w); each u ≠ v appears in k−1 pairs, so
// cost(T) ≤ (k−1)·Σ_{u∈T} d(u,v) ≤ (k−1)·2·OPT/k. Capacity can push a
// group past the nearest nodes, which voids the bound (the tests measure
// the gap there instead).
func Greedy(p Problem) (Plan, error) { return solve(p, greedyAssign) }

func greedyAssign(groups []Group, free []Node, cost [][]float64) ([]int, error) {
	var best []int
	bestCost := math.Inf(1)
	var failure error
	furthest := -1
	for first := range free {
		if !fits(groups[0], free[first]) {
			continue
		}
		at := []int{first}
		used := map[int]bool{first: true}
		for i := 1; i < len(groups); i++ {
			pick := -1
			for n := range free {
				if used[n] || !fits(groups[i], free[n]) {
					continue
				}
				if pick < 0 || cost[first][n] < cost[first][pick] {
					pick = n
				}
			}
			if pick < 0 {
				if i > furthest {
					furthest, failure = i, noRoom(i, groups[i], free, used)
				}
				break
			}
			at = append(at, pick)
			used[pick] = true
		}
		if len(at) == len(groups) {
			if c := setCost(at, cost); c < bestCost {
				best, bestCost = at, c
			}
		}
	}
	if best != nil {
		return best, nil
	}
	if failure == nil {
		failure = noRoom(0, groups[0], free, map[int]bool{})
	}
	return nil, failure
}

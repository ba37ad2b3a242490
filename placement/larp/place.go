package larp

import (
	"fmt"
	"slices"
	"strings"
)

// assign chooses a distinct node (an index into free) for each group, in
// order; groups arrive most demanding first.
type assign func(groups []Group, free []Node, cost [][]float64) ([]int, error)

// solve groups each application and places its groups with a, taking
// their requests off the nodes' free capacity before the next application.
func solve(p Problem, a assign) (Plan, error) {
	if err := p.validate(); err != nil {
		return Plan{}, err
	}
	cost := p.delayMatrix()
	free := slices.Clone(p.Nodes)
	var plan Plan
	for _, app := range p.applications() {
		groups := group(app, len(free))
		slices.SortStableFunc(groups, func(a, b Group) int {
			switch {
			case a.CPU != b.CPU:
				return cmpFloatDesc(a.CPU, b.CPU)
			default:
				return cmpFloatDesc(a.Memory, b.Memory)
			}
		})
		at, err := a(groups, free, cost)
		if err != nil {
			names := make([]string, len(app))
			for i, c := range app {
				names[i] = c.Name
			}
			return Plan{}, fmt.Errorf("application %s: %w", strings.Join(names, ", "), err)
		}
		for i := range groups {
			groups[i].Node = free[at[i]].Name
			free[at[i]].CPU -= groups[i].CPU
			free[at[i]].Memory -= groups[i].Memory
			for j := range i {
				plan.Cost += cost[at[i]][at[j]]
			}
		}
		plan.Groups = append(plan.Groups, groups...)
	}
	return plan, nil
}

func cmpFloatDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// fits reports whether a group fits a node's free capacity (with a
// tolerance for the sums' rounding).
func fits(g Group, n Node) bool {
	return g.CPU <= n.CPU+1e-9 && g.Memory <= n.Memory*(1+1e-12)+1e-6
}

// setCost is Σ over pairs of the symmetric cost between the chosen nodes.
func setCost(at []int, cost [][]float64) float64 {
	total := 0.0
	for i := range at {
		for j := range i {
			total += cost[at[i]][at[j]]
		}
	}
	return total
}

// noRoom explains why group i fits on none of the nodes left.
func noRoom(i int, g Group, free []Node, used map[int]bool) error {
	counts := map[string]int{}
	var order []string
	for _, r := range g.Replicas {
		if counts[r.Component] == 0 {
			order = append(order, r.Component)
		}
		counts[r.Component]++
	}
	parts := make([]string, len(order))
	for k, c := range order {
		parts[k] = fmt.Sprintf("%s×%d", c, counts[c])
	}
	best := -1
	for n := range free {
		if !used[n] && (best < 0 || free[n].CPU > free[best].CPU) {
			best = n
		}
	}
	left := "no node is left (one group per node)"
	if best >= 0 {
		left = fmt.Sprintf("the most free CPU left is %.3g cores on %s (memory %.4g MiB)", free[best].CPU, free[best].Name, free[best].Memory/(1<<20))
	}
	return fmt.Errorf("group %d (%s: %.3g cores, %.4g MiB) fits on no node: %s", i, strings.Join(parts, ", "), g.CPU, g.Memory/(1<<20), left)
}

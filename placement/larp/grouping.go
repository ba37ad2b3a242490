package larp

import "fmt"

// groupCount is LARP's number of groups for an application: the mean
// replica count per component, rounded down, at least 1 and at most
// nodes (each group gets its own node).
func groupCount(app []Component, nodes int) int {
	total := 0
	for _, c := range app {
		total += c.Replicas
	}
	return max(1, min(total/len(app), nodes))
}

// group deals an application's replicas into groups round-robin, in
// component order and carrying on from one component to the next, so that
// the groups differ by at most one replica: three A and two B replicas make
// {A0, A2, B1} and {A1, B0}.
func group(app []Component, nodes int) []Group {
	groups := make([]Group, groupCount(app, nodes))
	next := 0
	for _, c := range app {
		for i := range c.Replicas {
			g := &groups[next%len(groups)]
			g.Replicas = append(g.Replicas, Replica{Component: c.Name, Index: i})
			g.CPU += c.CPU
			g.Memory += c.Memory
			next++
		}
	}
	return groups
}

// AddReplica records a new replica of component (its next index) in the
// group short of it: the one with the fewest replicas of that component,
// then the fewest replicas, then the first. It returns the group's index;
// the replica belongs on that group's node when it fits there.
func (p *Plan) AddReplica(component string, cpu, memory float64) (int, error) {
	best, bestOf, bestAll, index := -1, 0, 0, 0
	for gi, g := range p.Groups {
		of := 0
		for _, r := range g.Replicas {
			if r.Component == component {
				of++
				index = max(index, r.Index+1)
			}
		}
		if of == 0 && !p.serves(gi, component) {
			continue
		}
		if best < 0 || of < bestOf || (of == bestOf && len(g.Replicas) < bestAll) {
			best, bestOf, bestAll = gi, of, len(g.Replicas)
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("component %q is not in the plan", component)
	}
	// Indexes are never reused, even after a replica left.
	if p.issued == nil {
		p.issued = map[string]int{}
	}
	index = max(index, p.issued[component])
	p.issued[component] = index + 1
	g := &p.Groups[best]
	g.Replicas = append(g.Replicas, Replica{Component: component, Index: index})
	g.CPU += cpu
	g.Memory += memory
	return best, nil
}

// serves reports whether group gi belongs to the application of component:
// it holds a replica of a component that shares a group with it.
func (p *Plan) serves(gi int, component string) bool {
	app := p.application(component)
	for _, r := range p.Groups[gi].Replicas {
		if app[r.Component] {
			return true
		}
	}
	return false
}

// application is the set of components grouped together with component.
func (p *Plan) application(component string) map[string]bool {
	app := map[string]bool{component: true}
	for changed := true; changed; {
		changed = false
		for _, g := range p.Groups {
			in := false
			for _, r := range g.Replicas {
				in = in || app[r.Component]
			}
			if !in {
				continue
			}
			for _, r := range g.Replicas {
				if !app[r.Component] {
					app[r.Component], changed = true, true
				}
			}
		}
	}
	return app
}

// RemoveReplica drops a replica, which requested cpu and memory, from its
// group (a pod deleted or scaled away), so that the next one joins the
// group it left short.
func (p *Plan) RemoveReplica(r Replica, cpu, memory float64) {
	for gi := range p.Groups {
		g := &p.Groups[gi]
		for i, x := range g.Replicas {
			if x == r {
				g.Replicas = append(g.Replicas[:i], g.Replicas[i+1:]...)
				g.CPU -= cpu
				g.Memory -= memory
				return
			}
		}
	}
}

// Package larp is LATA's placement stage (LARP): communicating replicas are
// gathered into groups and the groups placed on nodes close to each other,
// so that the traffic allocator that runs next (LATA, HEART or ARTT) finds
// short links to send traffic over. It is pure computation: the lab and
// artt-scheduler feed it the same inputs.
//
// Grouping (grouping.go): an application of components (connected by
// calls) gets ⌊mean replica count⌋ groups, at most one per node, and each
// component's replicas are dealt to the groups round-robin: three A replicas
// and two B replicas make two groups, {A0, A2, B0} and {A1, B1}.
//
// Placement puts each group on its own node, within the node's free CPU and
// memory, minimising the total delay between the chosen nodes (both
// directions of every pair). Exact (exact.go) solves this integer program by
// branch and bound over the assignments, for small instances and as the
// tests' oracle. Greedy (greedy.go) is the paper's approximation: the most
// demanding group first, then each other group, by demand, on the feasible
// node with the lowest delay to the first; trying every node as the first
// and keeping the cheapest. With delays that obey the triangle inequality
// and capacities that bind no choice, that is at most 2(k−1)/k times the
// optimum for k groups (greedy.go proves it).
package larp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/internal/disjoint"
	"github.com/artt-dev/artt/internal/fielderr"
)

// Problem is one placement.
type Problem struct {
	// Components to place, with their replica counts and per-replica
	// requests.
	Components []Component
	// Calls are the call graph's edges; components linked by calls form one
	// application, grouped and placed together.
	Calls []graph.Call
	// Nodes with the CPU and memory free for these replicas.
	Nodes []Node
	// Delays are one-way node-to-node delays in milliseconds; a pair not
	// listed costs the largest listed delay (an unmeasured link is not
	// assumed fast).
	Delays []graph.Delay
}

// Component is one microservice to place.
type Component struct {
	Name     string
	Replicas int
	// CPU (cores) and Memory (bytes) each replica requests.
	CPU, Memory float64
}

// Node is a candidate node.
type Node struct {
	Name string
	// CPU (cores) and Memory (bytes) free.
	CPU, Memory float64
}

// Replica names one replica of a component by its index.
type Replica struct {
	Component string
	Index     int
}

// Group is a set of replicas placed together.
type Group struct {
	Replicas []Replica
	// CPU and Memory the replicas request in all.
	CPU, Memory float64
	// Node is where the plan puts the group ("" before placement).
	Node string
}

// Plan is a placement.
type Plan struct {
	Groups []Group
	// Cost is Σ over pairs of groups of the delay both ways between their
	// nodes, in milliseconds, summed over applications.
	Cost float64
	// issued is the next replica index per component (AddReplica).
	issued map[string]int
}

// NodeOf is the node a replica is placed on ("" if the plan has none).
func (p Plan) NodeOf(component string, index int) string {
	for _, g := range p.Groups {
		for _, r := range g.Replicas {
			if r.Component == component && r.Index == index {
				return g.Node
			}
		}
	}
	return ""
}

// FieldError names a bad input field and its value.
type FieldError = fielderr.Error

// validate checks the problem, returning every error at once.
func (p Problem) validate() error {
	var errs []error
	bad := func(field string, value any, reason string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Reason: reason})
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }
	comps := map[string]bool{}
	for i, c := range p.Components {
		f := fmt.Sprintf("components[%d]", i)
		switch {
		case c.Name == "" || comps[c.Name]:
			bad(f+".name", c.Name, "required and unique")
		case c.Replicas < 1:
			bad(f+".replicas", c.Replicas, "must be ≥ 1")
		case !finite(c.CPU):
			bad(f+".cpu", c.CPU, "must be a finite number ≥ 0")
		case !finite(c.Memory):
			bad(f+".memory", c.Memory, "must be a finite number ≥ 0")
		}
		comps[c.Name] = true
	}
	nodes := map[string]bool{}
	for i, n := range p.Nodes {
		f := fmt.Sprintf("nodes[%d]", i)
		switch {
		case n.Name == "" || nodes[n.Name]:
			bad(f+".name", n.Name, "required and unique")
		case !finite(n.CPU):
			bad(f+".cpu", n.CPU, "must be a finite number ≥ 0")
		case !finite(n.Memory):
			bad(f+".memory", n.Memory, "must be a finite number ≥ 0")
		}
		nodes[n.Name] = true
	}
	for i, c := range p.Calls {
		if !comps[c.From] {
			bad(fmt.Sprintf("calls[%d].from", i), c.From, "not a component")
		}
		if !comps[c.To] {
			bad(fmt.Sprintf("calls[%d].to", i), c.To, "not a component")
		}
	}
	for i, d := range p.Delays {
		f := fmt.Sprintf("delays[%d]", i)
		switch {
		case !nodes[d.From]:
			bad(f+".from", d.From, "not a node")
		case !nodes[d.To]:
			bad(f+".to", d.To, "not a node")
		case !finite(d.Ms):
			bad(f+".ms", d.Ms, "must be a finite number ≥ 0")
		}
	}
	if len(p.Nodes) == 0 && len(p.Components) > 0 {
		bad("nodes", "[]", "at least one node")
	}
	return errors.Join(errs...)
}

// delayMatrix is the symmetric cost d(i,j) + d(j,i) between node indices;
// unlisted pairs cost the largest listed delay, a node to itself nothing.
func (p Problem) delayMatrix() [][]float64 {
	idx := map[string]int{}
	for i, n := range p.Nodes {
		idx[n.Name] = i
	}
	worst := 0.0
	for _, d := range p.Delays {
		worst = max(worst, d.Ms)
	}
	one := make([][]float64, len(p.Nodes))
	for i := range one {
		one[i] = make([]float64, len(p.Nodes))
		for j := range one[i] {
			if i != j {
				one[i][j] = worst
			}
		}
	}
	for _, d := range p.Delays {
		if d.From != d.To {
			one[idx[d.From]][idx[d.To]] = d.Ms
		}
	}
	both := make([][]float64, len(p.Nodes))
	for i := range both {
		both[i] = make([]float64, len(p.Nodes))
		for j := range both[i] {
			both[i][j] = one[i][j] + one[j][i]
		}
	}
	return both
}

// applications splits the components into the call graph's connected
// parts, each sorted by name, largest first (then by first name).
func (p Problem) applications() [][]Component {
	var sets disjoint.Sets[string]
	for _, c := range p.Components {
		sets.Add(c.Name)
	}
	for _, c := range p.Calls {
		sets.Union(c.From, c.To)
	}
	byRoot := map[string][]Component{}
	for _, c := range p.Components {
		byRoot[sets.Find(c.Name)] = append(byRoot[sets.Find(c.Name)], c)
	}
	var out [][]Component
	for _, app := range byRoot {
		slices.SortFunc(app, func(a, b Component) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, app)
	}
	slices.SortFunc(out, func(a, b []Component) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a[0].Name, b[0].Name)
	})
	return out
}

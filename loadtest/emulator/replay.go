package emulator

import (
	"fmt"
	"slices"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// checkReplay refuses a replayed table that names a component or node the
// scenario lacks, so a log from another file cannot be half-applied.
func (e *Emulator) checkReplay(changes []outcome.TableChange) error {
	node := func(name string) bool {
		return slices.ContainsFunc(e.nodes, func(n *node) bool { return n.name == name })
	}
	for i, ch := range changes {
		if e.byName[ch.Component] == nil {
			return fmt.Errorf("replayed table %d: component %q is not in the scenario", i, ch.Component)
		}
		for from, to := range ch.Rows {
			if !node(from) {
				return fmt.Errorf("replayed table %d (%s): caller node %q is not in the scenario", i, ch.Component, from)
			}
			for callee := range to {
				if !node(callee) {
					return fmt.Errorf("replayed table %d (%s): callee node %q is not in the scenario", i, ch.Component, callee)
				}
			}
		}
	}
	return nil
}

// replay installs the idx-th replayed table.
func (e *Emulator) replay(idx int) {
	ch := e.replayed[idx]
	c := e.byName[ch.Component]
	table := make([][]localityWeight, len(e.nodes))
	for from, to := range ch.Rows {
		f := e.nodeIndex(from)
		for callee, w := range to {
			table[f] = append(table[f], localityWeight{node: e.nodeIndex(callee), weight: w})
		}
		slices.SortFunc(table[f], func(a, b localityWeight) int { return a.node - b.node })
	}
	c.setTable(table, len(ch.Rows) > 0)
	e.res.allocations++
}

// nodeIndex is the index of the node of that name (checked by checkReplay).
func (e *Emulator) nodeIndex(name string) int {
	return slices.IndexFunc(e.nodes, func(n *node) bool { return n.name == name })
}

// setTable installs a component's locality weights; inForce says a
// `from` entry applies.
func (c *component) setTable(table [][]localityWeight, inForce bool) {
	c.weights = table
	c.tableInForce = inForce
	c.routingVersion++
}

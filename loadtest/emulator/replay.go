package emulator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
)

// TableChange is a routing table put in force for a component at a time:
// its distribute rows by node name, caller node → callee node → weight in
// percent, as a DestinationRule carries them. No rows is the table lifted
// (the component left to the data plane's balancer).
type TableChange struct {
	// AtS is seconds since the load began; a table in force before then
	// is in force from the start.
	AtS       float64                      `json:"atS"`
	Component string                       `json:"component"`
	Rows      map[string]map[string]uint32 `json:"rows,omitempty"`
}

// ReadTableChanges reads tables as JSON lines, one TableChange a line (a
// live run's live-N-tables.jsonl), in the order they came into force.
func ReadTableChanges(r io.Reader) ([]TableChange, error) {
	var out []TableChange
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var ch TableChange
		if err := dec.Decode(&ch); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		switch {
		case ch.Component == "":
			return nil, fmt.Errorf("line %d: component is empty", line)
		case math.IsNaN(ch.AtS) || math.IsInf(ch.AtS, 0):
			return nil, fmt.Errorf("line %d: atS %v is not a time", line, ch.AtS)
		case len(out) > 0 && ch.AtS < out[len(out)-1].AtS:
			return nil, fmt.Errorf("line %d: atS %v is before the line above's %v", line, ch.AtS, out[len(out)-1].AtS)
		}
		out = append(out, ch)
	}
	return out, sc.Err()
}

// checkReplay refuses a replayed table that names a component or node the
// scenario lacks, so a log from another file cannot be half-applied.
func (e *Emulator) checkReplay(changes []TableChange) error {
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

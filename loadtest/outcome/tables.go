package outcome

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
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

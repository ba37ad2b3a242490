package loadtest

import (
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// yamlEvent appends a node event at the given second and revalidates.
func yamlEvent(sc *scenario.Scenario, typ, node string, at int) error {
	sc.Events = append(sc.Events, scenario.Event{Type: typ, Node: node, At: scenario.Duration{Duration: time.Duration(at) * time.Second}})
	return sc.FillAndValidate()
}

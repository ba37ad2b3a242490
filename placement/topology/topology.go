// Package topology is the ConfigMap through which artt-traffic shares what
// it measures with artt-scheduler: the node-to-node delays and the call
// graph between workloads. Both sides use this package, so the format has
// one definition: key "delays", one line "from-node to-node one-way-ms"
// each, and key "calls", one line "namespace/caller namespace/callee" each.
package topology

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/internal/fielderr"
)

// The ConfigMap's keys.
const (
	DelaysKey = "delays"
	CallsKey  = "calls"
)

// Topology is what the ConfigMap holds.
type Topology struct {
	// Delays are one-way node-to-node delays in milliseconds.
	Delays []graph.Delay
	// Calls are edges between workloads, each "namespace/name".
	Calls []Call
}

// Call is one edge of the call graph.
type Call struct{ From, To string }

// Data writes the topology as the ConfigMap's data, sorted so that an
// unchanged topology gives byte-identical data.
func (t Topology) Data() map[string]string {
	delays := make([]string, 0, len(t.Delays))
	for _, d := range t.Delays {
		delays = append(delays, d.From+" "+d.To+" "+strconv.FormatFloat(d.Ms, 'f', -1, 64))
	}
	calls := make([]string, 0, len(t.Calls))
	for _, c := range t.Calls {
		calls = append(calls, c.From+" "+c.To)
	}
	slices.Sort(delays)
	slices.Sort(calls)
	return map[string]string{DelaysKey: strings.Join(delays, "\n"), CallsKey: strings.Join(calls, "\n")}
}

// Parse reads a ConfigMap's data; every bad line is reported, naming the
// key, the line and the value.
func Parse(data map[string]string) (Topology, error) {
	var t Topology
	var errs []error
	bad := func(key string, line int, value, reason string) {
		errs = append(errs, &fielderr.Error{Field: fmt.Sprintf("%s line %d", key, line), Value: value, Reason: reason})
	}
	for i, line := range lines(data[DelaysKey]) {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			bad(DelaysKey, i+1, line, "want \"from-node to-node milliseconds\"")
			continue
		}
		ms, err := strconv.ParseFloat(f[2], 64)
		if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
			bad(DelaysKey, i+1, f[2], "want a number of milliseconds ≥ 0")
			continue
		}
		t.Delays = append(t.Delays, graph.Delay{From: f[0], To: f[1], Ms: ms})
	}
	for i, line := range lines(data[CallsKey]) {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !workload(f[0]) || !workload(f[1]) {
			bad(CallsKey, i+1, line, "want \"namespace/caller namespace/callee\"")
			continue
		}
		t.Calls = append(t.Calls, Call{From: f[0], To: f[1]})
	}
	return t, errors.Join(errs...)
}

// lines splits text into its trimmed lines, numbered as in the text; the
// callers skip the empty ones.
func lines(text string) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	out := strings.Split(text, "\n")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func workload(s string) bool {
	ns, name, ok := strings.Cut(s, "/")
	return ok && ns != "" && name != "" && !strings.Contains(name, "/")
}

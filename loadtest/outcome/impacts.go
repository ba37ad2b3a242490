package outcome

import (
	"fmt"
	"math"
	"slices"

	"github.com/artt-dev/artt/internal/stats"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// EventImpact is what an injected event cost: of the requests started in
// the minute after it, how many failed or timed out, and the P99 of those
// that succeeded.
type EventImpact struct {
	At          float64
	Description string
	Started     int64
	Lost        int64
	P99Ms       float64
	latenciesMs []float64
}

// impactWindow is how long after an event its losses are counted.
const impactWindow = 60.0

// EventImpacts are a scenario's events as the report counts them, each
// described and with nothing counted yet.
func EventImpacts(events []scenario.Event) []EventImpact {
	var out []EventImpact
	for _, ev := range events {
		desc := ev.Type
		switch ev.Type {
		case "node-slowdown":
			desc += fmt.Sprintf(" %s to %g", ev.Node, ev.Speed)
		case "node-contention", "node-quota":
			desc += fmt.Sprintf(" %s %g cores", ev.Node, ev.Cores)
		case "node-failure":
			desc += " " + ev.Node
		case "pod-failure":
			desc += " " + ev.Component
		}
		out = append(out, EventImpact{At: ev.At.Seconds(), Description: desc})
	}
	return out
}

// CountImpact counts a measured request started at t seconds into the
// run in the window of every event that holds it: lost, or answered in
// latencyMs.
func CountImpact(impacts []EventImpact, t float64, lost bool, latencyMs float64) {
	for i := range impacts {
		if ev := &impacts[i]; ev.holds(t) {
			ev.Started++
			if lost {
				ev.Lost++
			} else {
				ev.latenciesMs = append(ev.latenciesMs, latencyMs)
			}
		}
	}
}

// StartImpact counts a request started at t seconds into the run in the
// window of every event that holds it, as lost until SucceedImpact says
// otherwise (a request unanswered when the run ends is lost).
func StartImpact(impacts []EventImpact, t float64) {
	for i := range impacts {
		if ev := &impacts[i]; ev.holds(t) {
			ev.Started++
			ev.Lost++
		}
	}
}

// SucceedImpact takes back the loss StartImpact counted for a request
// started at t that succeeded in latencyMs.
func SucceedImpact(impacts []EventImpact, t, latencyMs float64) {
	for i := range impacts {
		if ev := &impacts[i]; ev.holds(t) {
			ev.Lost--
			ev.latenciesMs = append(ev.latenciesMs, latencyMs)
		}
	}
}

// holds reports whether a request started at t is in the event's window.
func (ev *EventImpact) holds(t float64) bool { return t >= ev.At && t < ev.At+impactWindow }

// summarizeEvents sets each event's P99 (NaN when none succeeded).
func summarizeEvents(impacts []EventImpact) {
	for i := range impacts {
		ev := &impacts[i]
		slices.Sort(ev.latenciesMs)
		ev.P99Ms = math.NaN()
		if len(ev.latenciesMs) > 0 {
			ev.P99Ms = stats.Quantile(ev.latenciesMs, 0.99)
		}
		ev.latenciesMs = nil
	}
}

package loadtest

import (
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// FuzzCheck feeds a scenario and the trace file beside it to the check
// artt-lab's validate and run both make: an error or an accepted scenario
// whose rate is within the lab's bounds, never a panic. The shipped
// scenarios and the two inputs that once sliced out of range seed it.
func FuzzCheck(f *testing.F) {
	trace := rows(100)
	for _, name := range Builtin() {
		if data, err := builtin.ReadFile("scenarios/" + name + ".yaml"); err == nil {
			f.Add(data, trace)
		}
	}
	f.Add([]byte(traceScenario), trace)
	f.Add([]byte(traceScenario), []byte("t,v\n2020-01-01 00:00:00,1\n2020-01-01 00:30:00,2\n"))
	for _, edit := range []string{"secondsPerRow: 1e-300,", "secondsPerRow: 1, start: 9223372036854775807,"} {
		f.Add([]byte(strings.Replace(traceScenario, "secondsPerRow: 1,", edit, 1)), trace)
	}
	f.Fuzz(func(t *testing.T, doc, trace []byte) {
		sc, err := scenario.Parse(doc)
		if err != nil {
			return
		}
		if err := checkBytes(t, doc, trace); err != nil {
			return
		}
		l := Loaded{Scenario: sc, Dir: t.TempDir()}
		if sc.Workload.Type == "trace" {
			return // Rate needs the file; checkBytes judged it
		}
		rate, err := Rate(l, "")
		if err != nil {
			t.Fatalf("accepted, then its rate refused: %v", err)
		}
		if peak := rate.Max(0, sc.Duration.Seconds()); peak > scenario.MaxRate {
			t.Fatalf("accepted a rate of %g requests a second", peak)
		}
	})
}

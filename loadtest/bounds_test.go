package loadtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// traceScenario is a one-component scenario replaying trace.csv beside it.
const traceScenario = `
name: traced
duration: 1m
cluster: {nodes: [{name: a, cores: 2}]}
application: {components: [{name: web, cpuPerRequest: 2ms, replicas: 1}]}
workload: {type: trace, trace: {file: trace.csv, secondsPerRow: 1, minRate: 1, maxRate: 10}}
runs: [{routing: random}]
`

// checkBytes parses a scenario and checks it with its trace file beside it,
// as artt-lab validate would.
func checkBytes(t testing.TB, doc, trace []byte) error {
	t.Helper()
	sc, err := scenario.Parse(doc)
	if err != nil {
		return err
	}
	dir := t.TempDir()
	if trace != nil {
		if err := os.WriteFile(filepath.Join(dir, "trace.csv"), trace, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Check(Loaded{Scenario: sc, Dir: dir}, "")
}

func rows(n int) []byte {
	var b strings.Builder
	b.WriteString("minute,requests\n")
	for i := range n {
		b.WriteString("m,")
		b.WriteString(strings.Repeat("1", 1+i%3))
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// Inputs that once panicked, hung or took gigabytes are refused by the
// check artt-lab's validate and run both make, naming the field, and the
// refusal allocates little.
func TestCheckRefusesWhatWouldExhaustTheMachine(t *testing.T) {
	edit := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(traceScenario) }
	constant := "{type: constant, rate: 100000}"
	traced := "{type: trace, trace: {file: trace.csv, secondsPerRow: 1, minRate: 1, maxRate: 10}}"
	var runs strings.Builder
	for i := range 21 {
		fmt.Fprintf(&runs, "{name: r%d, routing: random}, ", i)
	}
	cases := []struct {
		name, field, doc string
		trace            []byte
	}{
		{"rows shorter than an int counts", "workload.trace.start", edit("secondsPerRow: 1,", "secondsPerRow: 1e-300,"), rows(100)},
		{"a start past an int", "workload.trace.start", edit("secondsPerRow: 1,", "secondsPerRow: 1, start: 9223372036854775807,"), rows(100)},
		{"a device as the trace", "workload.trace.file", edit("file: trace.csv", "file: /dev/zero"), nil},
		{"a directory as the trace", "workload.trace.file", edit("file: trace.csv", "file: /"), nil},
		// 100,000 requests a second for 2 minutes and the 5 s timeout: 12.5 M hops.
		{"too many hops in a run", "workload", edit(traced, constant, "1m", "2m"), nil},
		// 21 runs of 2.5 M requests each.
		{"too many requests over the runs", "runs", edit(traced, constant, "1m", "20s", "{routing: random}", runs.String()), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := checkBytes(t, []byte(c.doc), c.trace)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.field) {
				t.Fatalf("accepted, or the field %s not named: %v", c.field, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("refusing it allocated %d MB", alloc>>20)
			}
		})
	}
}

// A trace file larger than the bound is refused before it is read.
func TestReadFileRefusesALargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(path, make([]byte, 1025), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path, 1024); err == nil || !strings.Contains(err.Error(), "1025 bytes") {
		t.Errorf("a file of 1025 bytes read under a bound of 1024: %v", err)
	}
	if data, err := ReadFile(path, 1025); err != nil || len(data) != 1025 {
		t.Errorf("a file at the bound: %d bytes, %v", len(data), err)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/emulator"
)

func TestCommands(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"list"}, &out, &errOut); err != nil || !strings.Contains(out.String(), "heart-pairwise") {
		t.Errorf("list: %v\n%s", err, out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nduration: 1m\nrunz: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"validate", bad}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "runz") {
		t.Errorf("validate of a bad file: error %v, want one naming the field runz", err)
	}
	if err := run([]string{"frobnicate"}, &out, &errOut); err == nil {
		t.Error("unknown command accepted")
	}
	dir := t.TempDir()
	out.Reset()
	if err := run([]string{"run", "--quiet", "--no-plots", "--out", dir, "--policies", "heart", "demo"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.md", "report.csv", "report.json"} {
		if _, err := os.Stat(filepath.Join(dir, "demo", f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "| heart |") || strings.Contains(out.String(), "| kubernetes |") {
		t.Errorf("--policies heart printed:\n%s", out.String())
	}
}

// A bad flag is one line that names it, its value and what it takes; the
// version is a command.
func TestFlagErrorsAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "--since", "1d"}, `import: --since = "1d": want a duration such as 90s, 15m or 24h`},
		{[]string{"run", "demo", "--seed", "x"}, `run: --seed = "x": want a whole number`},
		{[]string{"threshold", "--every", "1.5"}, `threshold: --every = "1.5": want a whole number`},
		{[]string{"validate", "--bogus"}, "validate: flag provided but not defined: -bogus"},
	} {
		var out, errOut bytes.Buffer
		err := run(tc.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to say %q", tc.args, err, tc.want)
		}
		if errOut.Len() > 0 {
			t.Errorf("%v: also printed %q; the error alone should say it", tc.args, errOut.String())
		}
	}
	var out bytes.Buffer
	if err := run([]string{"--version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "artt-lab ") {
		t.Errorf("--version: %v, printed %q", err, out.String())
	}
}

func TestThresholdProfilesTheShippedTrace(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"threshold", "--rows", "1500", "--every", "50", "--set", "maxThreshold=90"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"| artt | maxThreshold=90 |", "| lare | maxThreshold=90 |", "(1500 rows from 0, a poll every 50 rows)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"threshold", "--rows", "100"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "window + history") {
		t.Errorf("a trace shorter than one poll: %v", err)
	}
	if err := run([]string{"threshold", "--set", "window"}, &out, &errOut); err == nil {
		t.Error("--set without a value accepted")
	}
}

func TestImportFlagsAreChecked(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run([]string{"import", "--until", "yesterday"}, &out, &errOut)
	for _, want := range []string{"--prometheus is required", `--until = "yesterday"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("import with bad flags: error %v, want it to say %q", err, want)
		}
	}
	err = run([]string{"import", "--prometheus", "http://127.0.0.1:1", "--namespace", "shop", "--step", "1s"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--step = 1s") {
		t.Errorf("import with a 1s step: error %v", err)
	}
}

// Flags may follow the scenario names, as the README writes them, and a
// misspelt name is reported before any scenario runs, which the valid ones
// still do.
func TestRunTakesFlagsAfterNames(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"run", "heart-pairwise", "--seed", "2", "--policies", "least-request", "--no-plots", "--quiet", "--out", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	report, err := os.ReadFile(filepath.Join(out, "heart-pairwise", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "(seed 2)") || strings.Contains(string(report), "| kubernetes |") {
		t.Errorf("the flags after the name were not applied: report\n%s", report)
	}
	second := t.TempDir()
	stderr.Reset()
	err = run([]string{"run", "heart-pairwise", "no-such-scenario", "--quiet", "--no-plots", "--policies", "heart", "--out", second}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no-such-scenario") {
		t.Fatalf("a misspelt second name: error %v", err)
	}
	if !strings.HasPrefix(stderr.String(), "no-such-scenario: ") {
		t.Errorf("the misspelt name was not the first thing reported:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(second, "heart-pairwise", "report.md")); err != nil {
		t.Errorf("heart-pairwise did not run beside the misspelt name: %v", err)
	}
}

func TestParseInterspersed(t *testing.T) {
	fs, opts := runFlags(io.Discard)
	got, err := parseInterspersed(fs, []string{"a", "--seed", "7", "b", "--quiet", "--", "--out", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "--out", "c"}; !slices.Equal(got, want) || opts.seed != 7 || !opts.quiet || opts.out != "out" {
		t.Errorf("positional %q, seed %d, quiet %v, out %q; want %q, 7, true, out", got, opts.seed, opts.quiet, opts.out, want)
	}
}

// traceScenario is a one-component scenario replaying trace (a file name,
// or "nasa") from row start, with extra workload.trace fields.
func traceScenario(file string, start int, extra string) string {
	return fmt.Sprintf(`name: traced
duration: 2m
cluster:
  nodes: [{name: a, cores: 2}]
application:
  components:
    - {name: web, cpuPerRequest: 2ms, replicas: 1}
workload:
  type: trace
  timeout: 5s
  trace: {file: %s, start: %d, secondsPerRow: 10, minRate: 5, maxRate: 20%s}
runs: [{routing: least-request}]
`, file, start, extra)
}

// validate refuses, with the field and the value, every scenario run
// would fail on, and still says ok for the valid ones beside it.
func TestValidateChecksWhatRunNeeds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("short.csv", "minute,rate\n0,1\n1,2\n2,3\n")
	if err := os.Mkdir(filepath.Join(dir, "folder.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	good := write("good.yaml", traceScenario("nasa", 0, ""))
	cases := []struct {
		name, body string
		says       []string
	}{
		// 2 min + 5 s timeout at 10 s per row is 13 rows; the file has 3.
		{"too short", traceScenario("short.csv", 0, ""), []string{"workload.trace.start = 0", "3 rows", "need 13"}},
		{"starts past the end", traceScenario("nasa", 20000, ""), []string{"workload.trace.start = 20000"}},
		{"missing file", traceScenario("nowhere.csv", 0, ""), []string{"workload.trace.file = nowhere.csv", "not found"}},
		{"unreadable file", traceScenario("folder.csv", 0, ""), []string{"workload.trace.file = folder.csv", "unreadable"}},
		{"missing column", traceScenario("short.csv", 0, ", column: rps"), []string{"workload.trace.column = rps", "minute"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := write(strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.body)
			var out, errOut bytes.Buffer
			err := run([]string{"validate", good, bad}, &out, &errOut)
			if err == nil {
				t.Fatalf("validate accepted %s", tc.name)
			}
			for _, want := range append(tc.says, bad) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if !strings.Contains(out.String(), good+": ok") || strings.Contains(out.String(), bad+": ok") {
				t.Errorf("stdout %q: want ok for %s only", out.String(), good)
			}
		})
	}
}

// run runs every valid scenario, writes their reports, names each failed
// one with its error, exits non-zero, and leaves the summary alone.
func TestRunRunsEveryValidScenario(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(traceScenario("nasa", 20000, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(dir, "summary.md")
	const doc = "before\n<!-- artt-lab summary start -->\nold\n<!-- artt-lab summary end -->\n"
	if err := os.WriteFile(summary, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := run([]string{"run", "--quiet", "--no-plots", "--policies", "heart", "--out", out, "--summary", summary, bad, "demo"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 scenarios failed") || !strings.Contains(err.Error(), bad+": workload.trace.start") {
		t.Fatalf("error %v; want one naming %s and its field", err, bad)
	}
	if _, err := os.Stat(filepath.Join(out, "demo", "report.md")); err != nil {
		t.Errorf("the valid scenario's report was not written: %v", err)
	}
	if got, _ := os.ReadFile(summary); string(got) != doc {
		t.Errorf("the summary was rewritten with a scenario missing:\n%s", got)
	}
	if !strings.Contains(stderr.String(), "not written") {
		t.Errorf("stderr does not say the summary was left alone:\n%s", stderr.String())
	}
}

// --replay-tables gives the one selected run the tables of a log: every
// caller's requests to the frontend go to the fast node's pod.
func TestRunReplaysATableLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "tables.jsonl")
	line := `{"atS":-1,"component":"frontend","rows":{"fast":{"fast":100},"medium":{"fast":100},"slow":{"fast":100}}}` + "\n"
	if err := os.WriteFile(log, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run([]string{"run", "--quiet", "--no-plots", "--out", dir, "--policies", "heart", "--replay-tables", log, "live-demo"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "live-demo", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Runs []struct {
			Pods []struct {
				Component, Node string
				Utilization     float64
			}
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Runs[0].Pods {
		if p.Component == "frontend" && (p.Node == "fast") != (p.Utilization > 0) {
			t.Errorf("frontend pod on %s: utilisation %.3f; the table sent every request to fast's", p.Node, p.Utilization)
		}
	}
	err = run([]string{"run", "--quiet", "--no-plots", "--out", dir, "--policies", "artt,artt-handover", "--replay-tables", log, "live-demo"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "names 2 runs") {
		t.Errorf("--policies artt,artt-handover: error %v, want one saying it names 2 runs", err)
	}
	out.Reset()
	if err := run([]string{"run", "--quiet", "--no-plots", "--out", dir, "--policies", "artt", "--replay-tables", log, "live-demo"}, &out, &errOut); err != nil {
		t.Fatalf("--policies artt names one run by label, though two route by artt: %v", err)
	}
	if strings.Contains(out.String(), "| artt-handover |") {
		t.Errorf("--policies artt with --replay-tables ran artt-handover too:\n%s", out.String())
	}
	if err := os.WriteFile(log, []byte(line+`{"atS":5,"component":"frontend","rowz":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run([]string{"run", "--quiet", "--no-plots", "--out", dir, "--policies", "heart", "--replay-tables", log, "live-demo"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "rowz") {
		t.Errorf("a misspelt field on line 2: error %v, want one naming the line and the field", err)
	}
}

// --phases runs the autoscaled runs at a live run's place on the wall
// clock: the report is the lab's at those phases, not at the seed's draw,
// and a file no run could have written is refused, naming the field.
func TestRunAtALiveRunsPhases(t *testing.T) {
	dir := t.TempDir()
	l, err := loadtest.Load("live-step")
	if err != nil {
		t.Fatal(err)
	}
	clock := emulator.RunClock{Phases: emulator.DrawPhases(l.Scenario), PodsIdle: 35}
	clock.Phases.Wall, clock.Phases.FirstPoll = 1231.4, 2.5
	want, err := loadtest.Run(l, loadtest.Options{Runs: []string{"least-request+artt-hpa"}, ByLabel: true,
		Emulator: emulator.Options{Phases: &clock.Phases, PodsIdle: clock.PodsIdle}})
	if err != nil {
		t.Fatal(err)
	}
	drawn, err := loadtest.Run(l, loadtest.Options{Runs: []string{"least-request+artt-hpa"}, ByLabel: true})
	if err != nil {
		t.Fatal(err)
	}
	write := func(c any) string {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "phases.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	args := func(path string) []string {
		return []string{"run", "--quiet", "--no-plots", "--out", dir, "--policies", "least-request+artt-hpa", "--phases", path, "live-step"}
	}
	var out, errOut bytes.Buffer
	if err := run(args(write(clock)), &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "live-step", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Runs []struct{ P99Ms float64 } }
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].P99Ms != want[0].P99Ms || want[0].P99Ms == drawn[0].P99Ms {
		t.Errorf("P99 at the file's phases %v, want the lab's at them, %v (at the seed's draw: %v)", rep.Runs, want[0].P99Ms, drawn[0].P99Ms)
	}
	clock.Phases.FirstPoll = 0
	if err := run(args(write(clock)), &out, &errOut); err == nil || !strings.Contains(err.Error(), "firstPoll is 0") {
		t.Errorf("a first poll at the load's start: %v, want it refused by name", err)
	}
	if err := run(args(write(map[string]any{"phases": clock.Phases, "idle": 3})), &out, &errOut); err == nil || !strings.Contains(err.Error(), `unknown field "idle"`) {
		t.Errorf("an unknown field: %v, want it refused by name", err)
	}
}

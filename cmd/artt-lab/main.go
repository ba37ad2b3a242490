// Command artt-lab runs ARTT and the papers' baselines on an emulated
// heterogeneous cluster and reports tail latency, timeouts, utilisation and
// cost side by side, with plots.
//
//	artt-lab list                      the built-in scenarios
//	artt-lab run [flags] SCENARIO...   run built-in names or scenario files
//	artt-lab validate [--trace-dir D] FILE...   check scenario files as run would
//	artt-lab import [flags]            a scenario from a live cluster's Prometheus
//	artt-lab version                   the build
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/artt-dev/artt/internal/version"
	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/report"
)

const usage = `artt-lab: ARTT on an emulated heterogeneous cluster, beside the baselines.

Usage:
  artt-lab list
  artt-lab run [flags] SCENARIO...     SCENARIO is a built-in name or a YAML/JSON file
  artt-lab validate [--trace-dir DIR] SCENARIO...
                                       check scenarios as run would (trace files, columns and length included), without running them
  artt-lab import --prometheus URL --namespace NS [--since 24h] [--until TIME] [--step D] [--default-delay D] [--out FILE]
                                       a scenario from a live cluster's Prometheus, its workload trace beside it
  artt-lab threshold [--trace nasa|FILE] [--column C] [--start N] [--rows N] [--every N] [--modes artt,lare] [--set key=value]...
                                       the threshold artt-scaler would serve over a trace, as a distribution
  artt-lab version                     the build: its version, Go toolchain and platform

Run flags:
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "artt-lab:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		fs, _ := runFlags(stderr)
		fs.PrintDefaults()
		return errors.New("missing command")
	}
	switch args[0] {
	case "list":
		for _, name := range loadtest.Builtin() {
			l, err := loadtest.Load(name)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%-18s %s\n", name, firstSentence(l.Scenario.Description))
		}
		return nil
	case "validate":
		return validateScenarios(args[1:], stdout, stderr)
	case "run":
		return runScenarios(args[1:], stdout, stderr)
	case "threshold":
		return thresholdProfile(args[1:], stdout, stderr)
	case "import":
		return importScenario(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, version.String("artt-lab"))
		return nil
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		fs, _ := runFlags(stdout)
		fs.PrintDefaults()
		return nil
	}
	return fmt.Errorf("unknown command %q (list, run, validate, threshold, import, version)", args[0])
}

type runOptions struct {
	out, traceDir, runs string
	seed                int64
	parallel            int
	noPlots, quiet      bool
	logAllocations      bool
	summary             string
	replayTables        string
	phases              string
	policyDraw          uint64
}

func runFlags(w io.Writer) (*flag.FlagSet, *runOptions) {
	opts := &runOptions{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.StringVar(&opts.out, "out", "out", "directory for reports; each scenario gets a subdirectory")
	fs.StringVar(&opts.traceDir, "trace-dir", "", "directory searched for trace files a scenario names")
	fs.StringVar(&opts.runs, "policies", "", "comma-separated run names or routing policies to keep (default: all runs of the scenario)")
	fs.Int64Var(&opts.seed, "seed", -1, "random seed (default: the scenario's)")
	fs.IntVar(&opts.parallel, "parallel", 0, "runs simulated at once (default: number of CPUs)")
	fs.BoolVar(&opts.noPlots, "no-plots", false, "skip the PNG plots")
	fs.BoolVar(&opts.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&opts.summary, "summary", "", "also write one table over every scenario run into this Markdown file, between its artt-lab summary markers (docs/results.md)")
	fs.StringVar(&opts.replayTables, "replay-tables", "", "give the one run --policies names by its label these routing tables (JSON lines, as artt-live writes them to logs/live-N-tables.jsonl) in place of its policy's")
	fs.StringVar(&opts.phases, "phases", "", "run the autoscaled runs at a live run's phases on the wall clock and its pods' idle time (JSON, as artt-live writes them to logs/live-N-phases.json) in place of the seed's draw")
	fs.Uint64Var(&opts.policyDraw, "policy-draw", 0, "another draw of the policies' own random stream (balancers' picks, probes' jitter, placement's ties) on the same requests; 0 is the seed's")
	fs.BoolVar(&opts.logAllocations, "log-allocations", false, "write every traffic allocation (shares, health, forecasts, routes) to allocations.log in the report directory")
	return fs, opts
}

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments, which it returns in order: "run demo --seed 2" as
// well as "run --seed 2 demo" (the flag package alone stops at the first
// name and would take "--seed" for a scenario). After "--" everything is
// positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	help := quiet(fs)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(fs, err, help)
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func runScenarios(args []string, stdout, stderr io.Writer) error {
	fs, opts := runFlags(stderr)
	scenarios, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(scenarios) == 0 {
		return errors.New("run: name at least one scenario (artt-lab list shows the built-in ones)")
	}
	// Every scenario is checked before any runs, so a misspelt third name
	// is reported at once, not after the first two have run for minutes;
	// the valid ones still run.
	good, bad := loadAndCheck(scenarios, opts.traceDir, stderr)
	var names []string
	var all [][]*outcome.Result
	for _, c := range good {
		results, err := runOne(c.l, opts, stdout, stderr)
		if err != nil {
			err = fmt.Errorf("%s: %w", c.name, err)
			fmt.Fprintln(stderr, indentLines(err.Error(), "  "))
			bad = append(bad, failure{c.name, err})
			continue
		}
		names = append(names, c.l.Scenario.Name)
		all = append(all, results)
	}
	if opts.summary != "" && len(bad) == 0 {
		if err := writeSummary(opts.summary, names, all); err != nil {
			return err
		}
	} else if opts.summary != "" {
		fmt.Fprintf(stderr, "--summary %s not written: a table without the failed scenarios would drop their rows\n", opts.summary)
	}
	return failed(bad, len(scenarios))
}

// runOne runs one checked scenario and writes its reports.
func runOne(l loadtest.Loaded, opts *runOptions, stdout, stderr io.Writer) ([]*outcome.Result, error) {
	o := loadtest.Options{TraceDir: opts.traceDir, Parallel: opts.parallel}
	o.Emulator.PolicyDraw = opts.policyDraw
	if opts.seed >= 0 {
		s := uint64(opts.seed)
		o.Seed = &s
	}
	if opts.runs != "" {
		o.Runs = strings.Split(opts.runs, ",")
	}
	if opts.replayTables != "" {
		label, tables, err := readReplay(opts.replayTables, l, o.Runs)
		if err != nil {
			return nil, err
		}
		o.Runs, o.ByLabel, o.Emulator.Replay = []string{label}, true, tables
	}
	if opts.phases != "" {
		clock, err := readClock(opts.phases)
		if err != nil {
			return nil, err
		}
		o.Emulator.Phases, o.Emulator.PodsIdle = &clock.Phases, clock.PodsIdle
	}
	if opts.logAllocations {
		dir := filepath.Join(opts.out, l.Scenario.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(filepath.Join(dir, "allocations.log"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var mu sync.Mutex
		o.Emulator.AllocationLog = func(line string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(f, line)
		}
	}
	var bar *progressBar
	if !opts.quiet {
		bar = newProgressBar(stderr, l.Scenario.Name)
		o.Progress = bar.update
	}
	start := time.Now()
	results, err := loadtest.Run(l, o)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		return nil, err
	}
	return results, write(l, results, time.Since(start), opts, stdout)
}

// readReplay reads --replay-tables for the one run --policies names by
// its label (a table log is one run's) and returns that label.
func readReplay(path string, l loadtest.Loaded, selected []string) (string, []outcome.TableChange, error) {
	var matched []string
	for _, r := range l.Scenario.Runs {
		if slices.Contains(selected, r.Label()) {
			matched = append(matched, r.Label())
		}
	}
	if len(matched) != 1 {
		return "", nil, fmt.Errorf("--replay-tables is one run's tables: --policies %q names %d runs of %s by label (%v)", strings.Join(selected, ","), len(matched), l.Scenario.Name, matched)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("--replay-tables: %w", err)
	}
	defer f.Close()
	tables, err := outcome.ReadTableChanges(f)
	if err != nil {
		return "", nil, fmt.Errorf("--replay-tables %s: %w", path, err)
	}
	return matched[0], tables, nil
}

// readClock reads --phases: one live run's place on the wall clock.
func readClock(path string) (emulator.RunClock, error) {
	var clock emulator.RunClock
	data, err := os.ReadFile(path)
	if err != nil {
		return clock, fmt.Errorf("--phases: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&clock); err != nil {
		return clock, fmt.Errorf("--phases %s: %w", path, err)
	}
	return clock, nil
}

// writeSummary puts the cross-scenario table into a Markdown file's
// summary block; nothing is written if the block is missing.
func writeSummary(path string, names []string, all [][]*outcome.Result) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	var table strings.Builder
	if err := report.Summary(&table, names, all); err != nil {
		return err
	}
	out, err := report.IntoMarkdown(string(doc), table.String())
	if err != nil {
		return fmt.Errorf("--summary %s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

func write(l loadtest.Loaded, results []*outcome.Result, took time.Duration, opts *runOptions, stdout io.Writer) error {
	dir := filepath.Join(opts.out, l.Scenario.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	seed := results[0].Seed
	title := fmt.Sprintf("%s (seed %d)", l.Scenario.Name, seed)
	var md strings.Builder
	if err := report.Markdown(&md, title, results); err != nil {
		return err
	}
	var events, hops int64
	for _, r := range results {
		events += r.Events
		hops += r.Hops
	}
	fmt.Fprintf(&md, "\n%s\n\nSimulated %s per run; %d events and %d request hops in %s of wall time.\n",
		strings.TrimSpace(l.Scenario.Description), l.Scenario.Duration.Duration, events, hops, took.Round(time.Millisecond))
	files := map[string]func(io.Writer) error{
		"report.md":   func(w io.Writer) error { _, err := io.WriteString(w, md.String()); return err },
		"report.csv":  func(w io.Writer) error { return report.CSV(w, results) },
		"report.json": func(w io.Writer) error { return report.JSON(w, results) },
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := os.Create(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		werr := files[n](f)
		if err := errors.Join(werr, f.Close()); err != nil {
			return fmt.Errorf("write %s: %w", n, err)
		}
	}
	fmt.Fprintln(stdout, md.String())
	written := []string{filepath.Join(dir, "report.md"), filepath.Join(dir, "report.csv"), filepath.Join(dir, "report.json")}
	if !opts.noPlots {
		plots, err := report.Plots(dir, title, results)
		if err != nil {
			return err
		}
		written = append(written, plots...)
	}
	fmt.Fprintf(stdout, "wrote %s\n\n", strings.Join(written, ", "))
	return nil
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// progressBar shows each run's progress on one line.
type progressBar struct {
	mu       sync.Mutex
	w        io.Writer
	name     string
	runs     map[string]float64
	order    []string
	lastDraw time.Time
	terminal bool
}

// newProgressBar draws on w when it is a terminal and prints one line per
// scenario otherwise (CI logs).
func newProgressBar(w io.Writer, name string) *progressBar {
	terminal := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			terminal = true
		}
	}
	return &progressBar{w: w, name: name, runs: map[string]float64{}, terminal: terminal}
}

func (b *progressBar) update(run string, frac float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.runs[run]; !ok {
		b.order = append(b.order, run)
	}
	b.runs[run] = frac
	if time.Since(b.lastDraw) < 200*time.Millisecond && frac < 1 {
		return
	}
	b.lastDraw = time.Now()
	total := 0.0
	for _, f := range b.runs {
		total += f
	}
	n := len(b.runs)
	const width = 30
	filled := int(width * total / float64(n))
	if b.terminal {
		fmt.Fprintf(b.w, "\r%-16s [%s%s] %3.0f%% of %d runs", b.name, strings.Repeat("#", filled), strings.Repeat(".", width-filled), 100*total/float64(n), n)
	}
}

func (b *progressBar) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.terminal {
		fmt.Fprintln(b.w)
	} else {
		fmt.Fprintf(b.w, "%s: %d runs done\n", b.name, len(b.runs))
	}
}

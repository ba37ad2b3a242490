// Command artt-live runs an artt-lab scenario on real parts on this
// machine (the live loop, package live) and reports it beside the lab's
// prediction for the same file.
//
//	artt-live run [flags] SCENARIO
//
// It needs root (a network namespace and cgroups of its own), cgroup v1's
// cpu and cpuacct controllers, and the components hack/ builds:
// KUBEBUILDER_ASSETS, ARTT_ISTIOD, ARTT_E2E_ASSETS, and Prometheus.
// docs/live.md says what is real, what is emulated, and which scenarios
// fit.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/live"
	"github.com/artt-dev/artt/loadtest/outcome"
)

func main() {
	if role := os.Getenv(live.RoleEnv); role != "" {
		os.Exit(live.RunRole(role, os.Args[1:]))
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "artt-live:", err)
		}
		os.Exit(2)
	}
}

const usage = `artt-live: an artt-lab scenario on real parts, beside the lab's prediction.

Usage:
  artt-live run [flags] SCENARIO     SCENARIO is a built-in name or a YAML/JSON file

Flags:
`

type options struct {
	out, policies, summary string
	maxCores               float64
	repeats                int
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprint(stderr, usage)
		flags(stderr).PrintDefaults()
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return flag.ErrHelp
		}
		return errors.New(`want "run SCENARIO"`)
	}
	fs := flags(stderr)
	opts := &options{}
	fs.StringVar(&opts.out, "out", "out/live", "directory for the report, the logs and the requests; the scenario gets a subdirectory, which a new run of it replaces")
	fs.StringVar(&opts.policies, "policies", "", "comma-separated run names or routings to keep (default: every run)")
	fs.StringVar(&opts.summary, "summary", "", "also write the comparison into this Markdown file, between the scenario's artt-live markers (docs/live-results.md)")
	fs.Float64Var(&opts.maxCores, "max-cores", live.DefaultMaxCores, "the most cores the scenario's nodes may have in all")
	fs.IntVar(&opts.repeats, "repeats", 1, "how many times to carry each run, one after another (each repeat is reported as RUN #N beside the lab at the seed, at that repeat's phases on the wall clock where KEDA scales it)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if opts.repeats < 1 {
		return fmt.Errorf("--repeats = %d: want at least 1", opts.repeats)
	}
	if fs.NArg() != 1 {
		return errors.New("run: name one scenario")
	}
	plan, err := live.NewPlan(fs.Arg(0), opts.maxCores)
	if err != nil {
		return err
	}
	if opts.policies != "" {
		if err := plan.Keep(strings.Split(opts.policies, ",")); err != nil {
			return err
		}
	}
	if !live.InNamespace() {
		code, err := live.ReexecInNamespace()
		if err != nil {
			return err
		}
		os.Exit(code)
	}
	return runInside(plan, opts, stdout, stderr)
}

func flags(w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(w)
	return fs
}

// runInside runs every run of the plan and the lab's prediction, and
// writes the report. Ctrl-C stops it cleanly.
func runInside(plan *live.Plan, opts *options, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir := filepath.Join(opts.out, plan.Scenario.Name)
	logs := filepath.Join(dir, "logs")
	// The components append to their logs within a run; a new run of the
	// scenario starts them afresh, as it does its report.
	if err := os.RemoveAll(logs); err != nil {
		return fmt.Errorf("clearing the last run's logs: %w", err)
	}
	progress := live.NewProgress(stderr, 5*time.Second)
	h, err := live.Start(ctx, plan, live.Options{Dir: logs, Assets: live.AssetsFromEnv(), Progress: progress})
	if err != nil {
		return fmt.Errorf("%w (logs in %s)", err, logs)
	}
	defer func() {
		if err := h.Close(); err != nil {
			fmt.Fprintln(stderr, "artt-live: cleaning up:", err)
		}
		fmt.Fprintln(stderr, "logs in", logs)
	}()
	var cs []live.Comparison
	var ms []*live.Measured
	for repeat := range opts.repeats {
		for i := range plan.Runs {
			m, err := h.Run(ctx, i, nil)
			if err != nil {
				return fmt.Errorf("run %s: %w", plan.Runs[i].Label(), err)
			}
			ms = append(ms, m)
			c := live.Comparison{Live: h.Result(m), Lag: live.SendLag(m), CPU: h.CPUPerRequest(m)}
			if opts.repeats > 1 {
				c.Live.Run += fmt.Sprintf(" #%d", repeat+1)
			}
			if m.Tables != nil {
				c.Cuts = live.CutTimes(plan.Scenario, m.Tables)
			}
			cs = append(cs, c)
		}
	}
	if err := predict(plan, cs, ms); err != nil {
		return err
	}
	if err := writeClocks(logs, cs, ms); err != nil {
		return err
	}
	for i := range cs {
		cs[i].Live.Capacity = live.Capacity(ms[i], cs[i].Lab.Capacity)
		cs[i].Live.Timeline = live.Timeline(ms[i], cs[i].Lab.Timeline)
	}
	path, err := live.WriteReport(dir, plan.Scenario.Name, cs)
	if err != nil {
		return err
	}
	live.PrintSummary(stdout, cs)
	fmt.Fprintln(stdout, "report:", path)
	if opts.summary != "" {
		heading := fmt.Sprintf("`%s`, run %s on %d cores (%s/%s):", plan.Scenario.Name, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
		return live.WriteSummary(opts.summary, plan.Scenario.Name, heading, cs)
	}
	return nil
}

// labSeeds is how many seeds the lab's prediction runs: the scenario's
// and the next ones, so a live figure can be read against the lab's own
// spread from one seed to another.
const labSeeds = 3

// replayDraws is how many draws of the lab's own random picks a run given
// the live tables is run over.
const replayDraws = 5

// replayTables runs the lab's run of that label at the scenario's seed,
// given a live run's tables, over replayDraws draws of its own picks; opts
// carry the live run's phases and idle time.
func replayTables(plan *live.Plan, label string, tables []outcome.TableChange, opts emulator.Options) ([]*outcome.Result, error) {
	var out []*outcome.Result
	for draw := range uint64(replayDraws) {
		opts.Replay, opts.PolicyDraw = tables, draw
		r, err := labRun(plan, label, plan.Loaded.Scenario.Seed, opts)
		if err != nil {
			return nil, fmt.Errorf("the lab given %s's live tables: %w", label, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// writeClocks writes, beside each autoscaled run's logs, the phases and
// idle time its prediction ran at: artt-lab --phases runs it again.
func writeClocks(logs string, cs []live.Comparison, ms []*live.Measured) error {
	for i, c := range cs {
		if c.Phases == nil {
			continue
		}
		data, err := json.MarshalIndent(emulator.RunClock{Phases: *c.Phases, PodsIdle: c.PodsIdle}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(logs, ms[i].Namespace+"-phases.json"), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// labRun is the lab's run of that label at a seed.
func labRun(plan *live.Plan, label string, seed uint64, opts emulator.Options) (*outcome.Result, error) {
	results, err := loadtest.Run(plan.Loaded, loadtest.Options{Runs: []string{label}, ByLabel: true, Seed: &seed, Emulator: opts})
	if err != nil {
		return nil, err
	}
	return results[0], nil
}

// predict runs the lab on the same file and runs, and sets each
// comparison's prediction: the run at the scenario's seed, and beside it
// the spread over labSeeds seeds; and, for the runs artt-traffic routed,
// the lab at the seed given the tables the live run had. Where KEDA scaled
// the run, every one of them starts its pods idle as long as the live
// run's did (live.PodsIdle), and the run at the seed and the tables' are
// at the live run's phases on the wall clock (live.Phases); the seeds at
// their own.
func predict(plan *live.Plan, cs []live.Comparison, ms []*live.Measured) error {
	for i := range cs {
		label := plan.Runs[i%len(plan.Runs)].Label()
		setup := emulator.Options{PodsIdle: live.PodsIdle(plan, ms[i])}
		for k := range uint64(labSeeds) {
			r, err := labRun(plan, label, plan.Loaded.Scenario.Seed+k, setup)
			if err != nil {
				return fmt.Errorf("the lab's prediction of %s (seed %d): %w", label, plan.Loaded.Scenario.Seed+k, err)
			}
			cs[i].LabSeeds = append(cs[i].LabSeeds, r)
		}
		cs[i].Lab = cs[i].LabSeeds[0]
		at := setup
		if at.Phases = live.Phases(plan, ms[i]); at.Phases != nil {
			var err error
			if cs[i].Lab, err = labRun(plan, label, plan.Loaded.Scenario.Seed, at); err != nil {
				return fmt.Errorf("the lab's prediction of %s at its phases: %w", label, err)
			}
			cs[i].Phases, cs[i].PodsIdle = at.Phases, at.PodsIdle
		}
		if ms[i].Tables == nil {
			continue
		}
		var err error
		if cs[i].Replayed, err = replayTables(plan, label, ms[i].Tables, at); err != nil {
			return err
		}
	}
	return nil
}

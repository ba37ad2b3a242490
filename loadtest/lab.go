// Package loadtest is artt-lab: it loads scenarios (built in or from files),
// builds their workloads, runs each policy combination on the emulator
// (package emulator), and hands the results to package report.
package loadtest

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

//go:embed scenarios/*.yaml
var builtin embed.FS

// Builtin lists the scenarios shipped with artt-lab.
func Builtin() []string {
	entries, _ := fs.ReadDir(builtin, "scenarios")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// Loaded is a parsed scenario and where to resolve its relative paths.
type Loaded struct {
	Scenario *scenario.Scenario
	// Dir is the scenario file's directory ("" for built-ins).
	Dir string
}

// Load reads a built-in scenario by name or a scenario file by path.
func Load(nameOrPath string) (Loaded, error) {
	if data, err := builtin.ReadFile("scenarios/" + nameOrPath + ".yaml"); err == nil {
		sc, err := scenario.Parse(data)
		if err != nil {
			return Loaded{}, fmt.Errorf("%s (built-in): %w", nameOrPath, err)
		}
		return Loaded{Scenario: sc}, nil
	}
	data, err := ReadFile(nameOrPath, scenario.MaxFileBytes)
	if err != nil {
		return Loaded{}, fmt.Errorf("%s: neither a built-in scenario (%s) nor a readable file: %w", nameOrPath, strings.Join(Builtin(), ", "), err)
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		return Loaded{}, fmt.Errorf("%s: %w", nameOrPath, err)
	}
	return Loaded{Scenario: sc, Dir: filepath.Dir(nameOrPath)}, nil
}

// Options tune a lab run.
type Options struct {
	// TraceDir is searched for trace files not found next to the scenario.
	TraceDir string
	// Seed, when non-nil, replaces the scenario's seed.
	Seed *uint64
	// Runs, when non-empty, keeps only runs whose label or routing policy is listed.
	Runs []string
	// ByLabel, when set, matches Runs against labels alone.
	ByLabel bool
	// Parallel bounds the runs simulated at once (default GOMAXPROCS).
	Parallel int
	// Progress receives (run label, fraction done) as runs advance.
	Progress func(run string, fraction float64)
	// Emulator passes options through to every run.
	Emulator emulator.Options
}

// Rate builds a scenario's arrival rate.
func Rate(l Loaded, traceDir string) (workload.Rate, error) {
	rate, err := arrivals(l, traceDir)
	if err != nil {
		return workload.Rate{}, err
	}
	// The clients keep sending until the run ends, and the last requests
	// may wait a timeout for their answer.
	sent := l.Scenario.Duration.Seconds() + l.Scenario.Workload.Timeout.Seconds()
	if err := l.Scenario.CheckLoad(rate.Mean(sent) * sent); err != nil {
		return workload.Rate{}, err
	}
	return rate, nil
}

// arrivals builds the rate a scenario's workload describes.
func arrivals(l Loaded, traceDir string) (workload.Rate, error) {
	w := l.Scenario.Workload
	switch w.Type {
	case "constant":
		return withHistory(workload.Constant(w.Rate), w.History), nil
	case "steps":
		r := workload.Rate{}
		if w.Steps[0].At.Duration > 0 {
			r.Starts, r.Values = []float64{0}, []float64{0}
		}
		for _, s := range w.Steps {
			r.Starts = append(r.Starts, s.At.Seconds())
			r.Values = append(r.Values, s.Rate)
		}
		return withHistory(r, w.History), nil
	}
	t := w.Trace
	var data []byte
	if t.File == "nasa" {
		data = workload.NASA
	} else {
		path, err := findTrace(t.File, l.Dir, traceDir)
		if err != nil {
			return workload.Rate{}, err
		}
		if data, err = ReadFile(path, scenario.MaxTraceBytes); err != nil {
			return workload.Rate{}, &scenario.FieldError{Field: "workload.trace.file", Value: t.File, Reason: "unreadable: " + err.Error()}
		}
	}
	series, err := workload.ParseCSV(data, t.Column)
	var missing *workload.ColumnError
	switch {
	case errors.As(err, &missing):
		return workload.Rate{}, &scenario.FieldError{Field: "workload.trace.column", Value: t.Column, Reason: fmt.Sprintf("not in the header of %s: %s", t.File, workload.Clip(strings.Join(missing.Header, ",")))}
	case err != nil:
		return workload.Rate{}, &scenario.FieldError{Field: "workload.trace.file", Value: t.File, Reason: err.Error()}
	}
	// The clients keep sending until the run ends, and the last requests
	// may wait a timeout for their answer.
	needed := l.Scenario.Duration.Seconds() + w.Timeout.Seconds()
	rows := math.Ceil(needed / t.SecondsPerRow)
	if float64(t.Start)+rows > float64(len(series.Values)) {
		return workload.Rate{}, &scenario.FieldError{Field: "workload.trace.start", Value: t.Start, Reason: fmt.Sprintf(
			"%s has %d rows; the duration and the client timeout (%g s) at %g s per row need %.3g from row %d", t.File, len(series.Values), needed, t.SecondsPerRow, rows, t.Start)}
	}
	return workload.Replay(series, t.Start, t.SecondsPerRow, needed, t.MinRate, t.MaxRate)
}

// withHistory gives r the past its scenario's history declares.
func withHistory(r workload.Rate, h *scenario.History) workload.Rate {
	if h != nil {
		r.Past = r.Repeated(h.Period.Seconds(), h.Periods)
	}
	return r
}

// Check finds what would stop Run: the arrival rate (trace file, column and
// length) and every run's emulator, built but not run. A scenario Check
// accepts runs.
func Check(l Loaded, traceDir string) error {
	rate, err := Rate(l, traceDir)
	if err != nil {
		return err
	}
	for _, run := range l.Scenario.Runs {
		if _, err := emulator.New(l.Scenario, run, rate, emulator.Options{}); err != nil {
			return fmt.Errorf("run %s: %w", run.Label(), err)
		}
	}
	return nil
}

func findTrace(file, dir, traceDir string) (string, error) {
	candidates := []string{file}
	if !filepath.IsAbs(file) {
		candidates = nil
		for _, base := range []string{dir, traceDir} {
			if base != "" {
				candidates = append(candidates, filepath.Join(base, file))
			}
		}
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", &scenario.FieldError{Field: "workload.trace.file", Value: file, Reason: fmt.Sprintf("not found next to the scenario or in --trace-dir (%q)", traceDir)}
}

// Run simulates every selected run of a scenario and returns the results
// in the scenario's run order.
func Run(l Loaded, opts Options) ([]*outcome.Result, error) {
	sc := *l.Scenario
	if opts.Seed != nil {
		sc.Seed = *opts.Seed
	}
	runs := sc.Runs
	if len(opts.Runs) > 0 {
		runs = slices.DeleteFunc(slices.Clone(runs), func(r scenario.Run) bool {
			return !slices.Contains(opts.Runs, r.Label()) && (opts.ByLabel || !slices.Contains(opts.Runs, r.Routing))
		})
		if len(runs) == 0 {
			var labels []string
			for _, r := range sc.Runs {
				labels = append(labels, r.Label())
			}
			return nil, fmt.Errorf("no run of %s matches %v; its runs are %v", sc.Name, opts.Runs, labels)
		}
	}
	// The lab's bounds count the runs that will run.
	sc.Runs = runs
	rate, err := Rate(Loaded{Scenario: &sc, Dir: l.Dir}, opts.TraceDir)
	if err != nil {
		return nil, err
	}
	parallel := opts.Parallel
	if parallel < 1 {
		parallel = runtime.GOMAXPROCS(0)
	}
	results := make([]*outcome.Result, len(runs))
	errs := make([]error, len(runs))
	if opts.Progress != nil {
		for _, run := range runs {
			opts.Progress(run.Label(), 0)
		}
	}
	// Every run runs to its end; errors are reported in the runs' order.
	var g errgroup.Group
	g.SetLimit(parallel)
	for i, run := range runs {
		g.Go(func() error {
			eo := opts.Emulator
			if opts.Progress != nil {
				label, total := run.Label(), sc.Duration.Seconds()
				eo.Progress = func(t float64) { opts.Progress(label, min(t/total, 1)) }
			}
			e, err := emulator.New(&sc, run, rate, eo)
			if err != nil {
				errs[i] = fmt.Errorf("run %s: %w", run.Label(), err)
				return nil
			}
			if results[i], err = e.Run(); err != nil {
				errs[i] = fmt.Errorf("run %s: %w", run.Label(), err)
			}
			if opts.Progress != nil {
				opts.Progress(run.Label(), 1)
			}
			return nil
		})
	}
	_ = g.Wait() // the runs' errors are in errs
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

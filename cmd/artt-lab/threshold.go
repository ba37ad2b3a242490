package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// thresholdProfile is `artt-lab threshold`: the distribution of the
// threshold artt-scaler would serve over a trace, one trace row per sample,
// for each mode asked, with the trigger metadata given.
func thresholdProfile(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("threshold", flag.ContinueOnError)
	fs.SetOutput(stderr)
	trace := fs.String("trace", "nasa", `"nasa" (shipped) or a CSV file`)
	column := fs.String("column", "", "value column (default: the last)")
	start := fs.Int("start", 0, "rows to skip")
	rows := fs.Int("rows", 0, "rows to use (default: all)")
	every := fs.Int("every", 10, "poll every this many rows")
	modes := fs.String("modes", "artt,lare", "comma-separated trigger modes to profile")
	var sets metadataFlag
	fs.Var(&sets, "set", "trigger metadata key=value (repeatable), as in a ScaledObject")
	shape := fs.String("shape", "", `instead of a trace: "step" or "ramp" of synthetic demand, θ poll by poll around it`)
	factor := fs.Float64("factor", 7, "with --shape: the demand after the step, or at the ramp's top, as a multiple of before")
	normalizations := fs.String("normalizations", "lead,relative", "with --shape: the artt normalisations compared")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *shape != "" {
		return thresholdAroundShape(stdout, *shape, *factor, strings.Split(*normalizations, ","), sets)
	}
	data := workload.NASA
	if *trace != "nasa" {
		var err error
		if data, err = loadtest.ReadFile(*trace, scenario.MaxTraceBytes); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	series, err := workload.ParseCSV(data, *column)
	if err != nil {
		return fmt.Errorf("--trace %s: %w", *trace, err)
	}
	values := series.Values
	if *start < 0 || *start >= len(values) {
		return fmt.Errorf("--start = %d: the trace has %d rows", *start, len(values))
	}
	values = values[*start:]
	if *rows > 0 {
		if *rows > len(values) {
			return fmt.Errorf("--rows = %d: only %d rows from --start", *rows, len(values))
		}
		values = values[:*rows]
	}
	fmt.Fprintf(stdout, "threshold over %s (%d rows from %d, a poll every %d rows)\n\n", *trace, len(values), *start, *every)
	fmt.Fprintln(stdout, "| mode | metadata | polls | mean | P5 | P25 | P50 | P75 | P95 | at min | at max |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, mode := range strings.Split(*modes, ",") {
		md := map[string]string{"mode": mode}
		for k, v := range sets {
			md[k] = v
		}
		p, err := loadtest.ProfileThreshold(values, md, *every)
		if err != nil {
			return fmt.Errorf("mode %s: %w", mode, err)
		}
		fmt.Fprintf(stdout, "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f%% | %.0f%% |\n", mode, sets.String(),
			p.Polls, p.Mean, p.P5, p.P25, p.P50, p.P75, p.P95, 100*p.AtMin, 100*p.AtMax)
	}
	return nil
}

// metadataFlag collects key=value pairs.
type metadataFlag map[string]string

func (m *metadataFlag) String() string {
	if m == nil || len(*m) == 0 {
		return "defaults"
	}
	var parts []string
	for k, v := range *m {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts) // the same flags print the same way
	return strings.Join(parts, ",")
}

func (m *metadataFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: want key=value", s)
	}
	if *m == nil {
		*m = metadataFlag{}
	}
	(*m)[k] = v
	return nil
}

// thresholdAroundShape prints θ poll by poll, one poll per sample, around a
// step or along a ramp of synthetic demand, for each normalisation.
func thresholdAroundShape(stdout io.Writer, kind string, factor float64, normalizations []string, sets metadataFlag) error {
	md := map[string]string{"mode": "artt"}
	for k, v := range sets {
		md[k] = v
	}
	p, err := loadtest.ThresholdAroundShape(kind, factor, normalizations, md)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "θ around a %s to %g× (synthetic demand, 100 requests per second with 3%% noise; one poll per sample; %s)\n\n", kind, factor, sets.String())
	fmt.Fprintf(stdout, "| samples after the change | demand |")
	for _, n := range normalizations {
		fmt.Fprintf(stdout, " θ %s |", n)
	}
	fmt.Fprintf(stdout, "\n|---:|---:|%s\n", strings.Repeat("---:|", len(normalizations)))
	for k, offset := range p.Offsets {
		fmt.Fprintf(stdout, "| %d | %.0f |", offset, p.Demand[k])
		for i := range normalizations {
			fmt.Fprintf(stdout, " %.1f |", p.Thresholds[i][k])
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

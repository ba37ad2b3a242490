// Package report turns artt-lab results into what people read: a
// side-by-side Markdown table, CSV and JSON for machines, and PNG plots
// (latency CDF, P99 and replicas over time, CPU utilisation per pod).
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// Row is one run's summary.
type Row struct {
	Run            string
	Requests       int64
	SuccessRate    float64
	Timeouts       int64
	Errors         int64
	MeanMs         float64
	P50Ms          float64
	P90Ms          float64
	P99Ms          float64
	P999Ms         float64
	UtilMean       float64
	UtilGap        float64
	UtilRatio      float64
	ReplicaSeconds float64
	ScalingEvents  int
	Allocations    int
	CrossNode      float64
	NetworkMs      float64
}

// Rows summarises results.
func Rows(results []*outcome.Result) []Row {
	rows := make([]Row, len(results))
	for i, r := range results {
		rows[i] = Row{
			Run: r.Run, Requests: r.Requests, SuccessRate: r.SuccessRate, Timeouts: r.Timeouts, Errors: r.Errors,
			MeanMs: r.MeanMs, P50Ms: r.P50Ms, P90Ms: r.P90Ms, P99Ms: r.P99Ms, P999Ms: r.P999Ms,
			UtilMean: r.UtilMean, UtilGap: r.UtilGap, UtilRatio: r.UtilRatio, ReplicaSeconds: r.ReplicaSeconds,
			ScalingEvents: r.ScalingEvents, Allocations: r.Allocations,
			CrossNode: r.CrossNodeFraction, NetworkMs: r.NetworkMs,
		}
	}
	return rows
}

func ms(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// Percent writes a fraction as a percentage to one decimal, "–" for NaN.
func Percent(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// SuccessPercent is a success rate as Percent writes it, but with as many
// more decimals as it takes not to read 100% while a request failed.
func SuccessPercent(v float64) string {
	s := Percent(v)
	for d := 2; v < 1 && strings.HasPrefix(s, "100.") && d <= 9; d++ {
		s = strconv.FormatFloat(100*v, 'f', d, 64) + "%"
	}
	return s
}

// Markdown writes the side-by-side table.
func Markdown(w io.Writer, title string, results []*outcome.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", title)
	verdict(&b, results)
	b.WriteString("| run | requests | success | timeouts | errors | mean ms | P50 ms | P90 ms | P99 ms | P99.9 ms | CPU util mean | component util max–min | component util max/mean | replica-seconds | scaling events | cross-node calls | network ms |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range Rows(results) {
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %d | %s | %s |\n",
			r.Run, r.Requests, SuccessPercent(r.SuccessRate), r.Timeouts, r.Errors, ms(r.MeanMs), ms(r.P50Ms), ms(r.P90Ms),
			ms(r.P99Ms), ms(r.P999Ms), Percent(r.UtilMean), Percent(r.UtilGap), ratioOrDash(r.UtilRatio), r.ReplicaSeconds, r.ScalingEvents,
			Percent(r.CrossNode), ms(r.NetworkMs))
	}
	equalCost(&b, results)
	limitGapTables(&b, results)
	timeToCapacity(&b, results)
	afterEvents(&b, results)
	_, err := io.WriteString(w, b.String())
	return err
}

// equalCost writes each autoscaled run against every sweep's frontier at
// its cost, and at its tail.
func equalCost(b *strings.Builder, results []*outcome.Result) {
	floor := FloorP99(results)
	if !math.IsNaN(floor) {
		fmt.Fprintf(b, "\nFloor: P99 %s ms with every autoscaled component at maxReplicas throughout, the tail no autoscaler removes. \"Excess ÷ frontier's\" is (P99 − floor) ÷ (frontier P99 − floor).\n", ms(floor))
	}
	for _, sw := range Sweeps {
		if f := NewSweep(results, sw.Sweep); f != nil {
			equalCostTable(b, sw.Name, f, floor, results)
		}
	}
}

// equalCostTable is one sweep's equal-cost and equal-tail comparison.
func equalCostTable(b *strings.Builder, name string, f *Frontier, floor float64, results []*outcome.Result) {
	fmt.Fprintf(b, "\nEqual cost against the %s sweep (", name)
	for i, p := range f.Points {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Run)
	}
	b.WriteString("), interpolated at the run's replica-seconds on the sweep's lower envelope; \"sweep's cost at this P99\" reads the envelope the other way. A run outside the sweep's costs \"dominates\" it when it is cheaper than every point with a shorter tail than any, and is \"dominated\" when it is dearer than every point and one has a tail as short.\n\n")
	b.WriteString("| run | replica-seconds | P99 ms | frontier P99 ms | P99 ÷ frontier | excess ÷ frontier's | sweep's cost at this P99 | cost ÷ sweep's | failed | frontier failed |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		if !judged(r) {
			continue
		}
		fp, ok := f.At(r.ReplicaSeconds, P99)
		ff, _ := f.At(r.ReplicaSeconds, Failures)
		ratio, failed := f.Dominance(r.ReplicaSeconds, r.P99Ms).String(), "–"
		if ok {
			ratio = strconv.FormatFloat(r.P99Ms/fp, 'f', 2, 64)
			failed = strconv.FormatFloat(ff, 'f', 0, 64)
		}
		cost, costRatio := "–", "–"
		if c, ok := f.CostAt(r.P99Ms); ok {
			cost, costRatio = strconv.FormatFloat(c, 'f', 0, 64), strconv.FormatFloat(r.ReplicaSeconds/c, 'f', 2, 64)
		}
		fmt.Fprintf(b, "| %s | %.0f | %s | %s | %s | %s | %s | %s | %d | %s |\n", r.Run, r.ReplicaSeconds, ms(r.P99Ms), ms(fp), ratio,
			ratioOrDash(f.ExcessRatio(r, floor)), cost, costRatio, r.Timeouts+r.Errors, failed)
	}
}

func ratioOrDash(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// timeToCapacity writes, per autoscaled run, how soon after each step up
// the ready pods covered the new demand: each step, or over many steps
// (a ramp) their mean and worst.
func timeToCapacity(b *strings.Builder, results []*outcome.Result) {
	var steps []outcome.StepCapacity
	for _, r := range results {
		if len(r.Capacity) > 0 {
			steps = r.Capacity
			break
		}
	}
	if len(steps) == 0 {
		return
	}
	b.WriteString("\nTime to capacity: seconds from each step up until the ready pods' CPU requests covered its demand (pods needed in brackets; – never).\n\n| run |")
	perStep := len(steps) <= maxStepColumns
	if perStep {
		for _, s := range steps {
			fmt.Fprintf(b, " %.0fs %s (%d) |", s.At, s.Component, s.Needed)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(steps)) + "\n")
	} else {
		fmt.Fprintf(b, " mean over %d steps | worst | never |\n|---|---:|---:|---:|\n", len(steps))
	}
	for _, r := range results {
		if len(r.Capacity) != len(steps) {
			continue
		}
		fmt.Fprintf(b, "| %s |", r.Run)
		if perStep {
			for _, s := range r.Capacity {
				fmt.Fprintf(b, " %s |", seconds(s.Seconds))
			}
			b.WriteString("\n")
			continue
		}
		var sum, worst float64
		var reached, never int
		for _, s := range r.Capacity {
			if math.IsNaN(s.Seconds) {
				never++
				continue
			}
			sum += s.Seconds
			worst = math.Max(worst, s.Seconds)
			reached++
		}
		mean := math.NaN()
		if reached > 0 {
			mean = sum / float64(reached)
		}
		fmt.Fprintf(b, " %s | %s | %d |\n", seconds(mean), seconds(worst), never)
	}
}

// maxStepColumns is how many steps the time-to-capacity table lists one
// by one.
const maxStepColumns = 4

func seconds(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// milliseconds is a latency to one decimal, "–" when nothing was timed.
func milliseconds(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// afterEvents writes what each injected event cost each run.
func afterEvents(b *strings.Builder, results []*outcome.Result) {
	if len(results) == 0 || len(results[0].AfterEvents) == 0 {
		return
	}
	b.WriteString("\nRequests lost (failed or timed out) of those started in the minute after each event, and the P99 of the rest:\n\n| run |")
	for _, ev := range results[0].AfterEvents {
		fmt.Fprintf(b, " %.0fs %s |", ev.At, ev.Description)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(results[0].AfterEvents)) + "\n")
	for _, r := range results {
		fmt.Fprintf(b, "| %s |", r.Run)
		for _, ev := range r.AfterEvents {
			fmt.Fprintf(b, " %d of %d, %s ms |", ev.Lost, ev.Started, milliseconds(ev.P99Ms))
		}
		b.WriteString("\n")
	}
}

// CSV writes one row per run.
func CSV(w io.Writer, results []*outcome.Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"run", "requests", "success_rate", "timeouts", "errors", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "cpu_util_mean", "component_util_gap", "component_util_ratio", "replica_seconds", "scaling_events", "cross_node_fraction", "network_ms"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, r := range Rows(results) {
		_ = cw.Write([]string{r.Run, strconv.FormatInt(r.Requests, 10), f(r.SuccessRate), strconv.FormatInt(r.Timeouts, 10),
			strconv.FormatInt(r.Errors, 10), f(r.MeanMs), f(r.P50Ms), f(r.P90Ms), f(r.P99Ms), f(r.P999Ms), f(r.UtilMean),
			f(r.UtilGap), f(r.UtilRatio), f(r.ReplicaSeconds), strconv.Itoa(r.ScalingEvents), f(r.CrossNode), f(r.NetworkMs)})
	}
	cw.Flush()
	return cw.Error()
}

// JSON writes the full report: per run its summary, time series, pods and
// notes. Values with no data (NaN) are written as null.
func JSON(w io.Writer, results []*outcome.Result) error {
	if len(results) == 0 {
		return nil
	}
	rows := Rows(results)
	runs := make([]map[string]any, len(results))
	for i, r := range results {
		row := rows[i]
		series := make([]map[string]any, len(r.Series))
		for j, p := range r.Series {
			pt := map[string]any{"t": p.T, "rate": p.Rate, "p99Ms": finite(p.P99Ms), "timeouts": p.Timeouts, "replicas": p.Replicas}
			if len(p.Threshold) > 0 {
				pt["threshold"] = p.Threshold
			}
			series[j] = pt
		}
		pods := make([]map[string]any, len(r.Pods))
		for j, p := range r.Pods {
			pods[j] = map[string]any{"name": p.Name, "component": p.Component, "node": p.Node, "seconds": p.Seconds, "utilization": finite(p.Utilization)}
		}
		run := map[string]any{
			"run": row.Run, "requests": row.Requests, "successRate": finite(row.SuccessRate), "timeouts": row.Timeouts,
			"errors": row.Errors, "meanMs": finite(row.MeanMs), "p50Ms": finite(row.P50Ms), "p90Ms": finite(row.P90Ms),
			"p99Ms": finite(row.P99Ms), "p999Ms": finite(row.P999Ms), "cpuUtilizationMean": finite(row.UtilMean),
			"componentUtilizationGap": finite(row.UtilGap), "componentUtilizationRatio": finite(row.UtilRatio),
			"replicaSeconds": finite(row.ReplicaSeconds),
			"scalingEvents":  row.ScalingEvents, "allocations": row.Allocations, "protections": r.Protections, "series": series, "pods": pods,
			"routing": r.Routing, "autoscaling": r.Autoscaling, "frontier": r.Frontier, "floor": r.Floor,
			"crossNodeFraction": finite(row.CrossNode), "networkMs": finite(row.NetworkMs),
		}
		if len(r.Components) > 0 {
			comps := make([]map[string]any, len(r.Components))
			for j, c := range r.Components {
				comps[j] = map[string]any{"component": c.Component, "utilizationGap": finite(c.Gap), "utilizationRatio": finite(c.Ratio)}
			}
			run["components"] = comps
		}
		if r.Frontier {
			run["sweep"] = r.Sweep
		}
		if r.Frontier {
			run["sweep"] = r.Sweep
		}
		if len(r.Capacity) > 0 {
			steps := make([]map[string]any, len(r.Capacity))
			for j, c := range r.Capacity {
				steps[j] = map[string]any{"at": c.At, "rate": c.Rate, "component": c.Component, "needed": c.Needed, "seconds": finite(c.Seconds)}
			}
			run["timeToCapacity"] = steps
		}
		if len(r.AfterEvents) > 0 {
			impacts := make([]map[string]any, len(r.AfterEvents))
			for j, ev := range r.AfterEvents {
				impacts[j] = map[string]any{"at": ev.At, "event": ev.Description, "started": ev.Started, "lost": ev.Lost, "p99Ms": finite(ev.P99Ms)}
			}
			run["afterEvents"] = impacts
		}
		if len(r.Notes) > 0 {
			run["notes"] = r.Notes
		}
		runs[i] = run
	}
	data, err := json.MarshalIndent(map[string]any{"scenario": results[0].Scenario, "seed": results[0].Seed, "runs": runs}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// finite is v, or nil (JSON null) when v is NaN or infinite.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

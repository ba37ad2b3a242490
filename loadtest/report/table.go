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

	"github.com/artt-dev/artt/loadtest/emulator"
)

// Row is one run's summary.
type Row struct {
	Run            string  `json:"run"`
	Requests       int64   `json:"requests"`
	SuccessRate    float64 `json:"successRate"`
	Timeouts       int64   `json:"timeouts"`
	Errors         int64   `json:"errors"`
	MeanMs         float64 `json:"meanMs"`
	P50Ms          float64 `json:"p50Ms"`
	P90Ms          float64 `json:"p90Ms"`
	P99Ms          float64 `json:"p99Ms"`
	P999Ms         float64 `json:"p999Ms"`
	UtilMean       float64 `json:"cpuUtilizationMean"`
	UtilGap        float64 `json:"cpuUtilizationMaxMinGap"`
	ReplicaSeconds float64 `json:"replicaSeconds"`
	ScalingEvents  int     `json:"scalingEvents"`
	Allocations    int     `json:"allocations"`
}

// Rows summarises results.
func Rows(results []*emulator.Result) []Row {
	rows := make([]Row, len(results))
	for i, r := range results {
		rows[i] = Row{
			Run: r.Run, Requests: r.Requests, SuccessRate: r.SuccessRate, Timeouts: r.Timeouts, Errors: r.Errors,
			MeanMs: r.MeanMs, P50Ms: r.P50Ms, P90Ms: r.P90Ms, P99Ms: r.P99Ms, P999Ms: r.P999Ms,
			UtilMean: r.UtilMean, UtilGap: r.UtilGap, ReplicaSeconds: r.ReplicaSeconds,
			ScalingEvents: r.ScalingEvents, Allocations: r.Allocations,
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

func pct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// Markdown writes the side-by-side table.
func Markdown(w io.Writer, title string, results []*emulator.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", title)
	b.WriteString("| run | requests | success | timeouts | errors | mean ms | P50 ms | P90 ms | P99 ms | P99.9 ms | CPU util mean | CPU util max–min | replica-seconds | scaling events |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range Rows(results) {
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %.0f | %d |\n",
			r.Run, r.Requests, pct(r.SuccessRate), r.Timeouts, r.Errors, ms(r.MeanMs), ms(r.P50Ms), ms(r.P90Ms),
			ms(r.P99Ms), ms(r.P999Ms), pct(r.UtilMean), pct(r.UtilGap), r.ReplicaSeconds, r.ScalingEvents)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes one row per run.
func CSV(w io.Writer, results []*emulator.Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"run", "requests", "success_rate", "timeouts", "errors", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "cpu_util_mean", "cpu_util_gap", "replica_seconds", "scaling_events"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, r := range Rows(results) {
		_ = cw.Write([]string{r.Run, strconv.FormatInt(r.Requests, 10), f(r.SuccessRate), strconv.FormatInt(r.Timeouts, 10),
			strconv.FormatInt(r.Errors, 10), f(r.MeanMs), f(r.P50Ms), f(r.P90Ms), f(r.P99Ms), f(r.P999Ms), f(r.UtilMean),
			f(r.UtilGap), f(r.ReplicaSeconds), strconv.Itoa(r.ScalingEvents)})
	}
	cw.Flush()
	return cw.Error()
}

// jsonReport is the machine-readable report: summaries, time series and notes.
type jsonReport struct {
	Scenario string    `json:"scenario"`
	Seed     uint64    `json:"seed"`
	Runs     []jsonRun `json:"runs"`
}

type jsonRun struct {
	Row
	Series []jsonPoint          `json:"series"`
	Pods   []emulator.PodResult `json:"pods"`
	Notes  []string             `json:"notes,omitempty"`
}

type jsonPoint struct {
	T         float64            `json:"t"`
	Rate      float64            `json:"rate"`
	P99Ms     *float64           `json:"p99Ms"`
	Timeouts  int64              `json:"timeouts"`
	Replicas  map[string]int     `json:"replicas"`
	Threshold map[string]float64 `json:"threshold,omitempty"`
}

// JSON writes the full report; NaN values become null.
func JSON(w io.Writer, results []*emulator.Result) error {
	if len(results) == 0 {
		return nil
	}
	rep := jsonReport{Scenario: results[0].Scenario, Seed: results[0].Seed}
	rows := Rows(results)
	for i, r := range results {
		run := jsonRun{Row: rows[i], Pods: r.Pods, Notes: r.Notes}
		for _, p := range r.Series {
			pt := jsonPoint{T: p.T, Rate: p.Rate, Timeouts: p.Timeouts, Replicas: p.Replicas, Threshold: p.Threshold}
			if !math.IsNaN(p.P99Ms) {
				v := p.P99Ms
				pt.P99Ms = &v
			}
			run.Series = append(run.Series, pt)
		}
		rep.Runs = append(rep.Runs, run)
	}
	data, err := json.MarshalIndent(sanitize(rep), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// sanitize replaces NaN and ±Inf (no data), which JSON cannot carry, by
// null in summaries and pod utilisations.
func sanitize(rep jsonReport) any {
	var generic map[string]any
	// Round-trip through a form where non-finite numbers are already nil.
	runs := make([]map[string]any, len(rep.Runs))
	for i, r := range rep.Runs {
		row := map[string]any{}
		b, _ := json.Marshal(finiteRow(r.Row))
		_ = json.Unmarshal(b, &row)
		for k, v := range nonFinite(r.Row) {
			row[k] = v
		}
		pods := make([]map[string]any, len(r.Pods))
		for j, p := range r.Pods {
			pods[j] = map[string]any{"name": p.Name, "component": p.Component, "node": p.Node, "seconds": p.Seconds, "utilization": finite(p.Utilization)}
		}
		row["series"], row["pods"] = r.Series, pods
		if len(r.Notes) > 0 {
			row["notes"] = r.Notes
		}
		runs[i] = row
	}
	generic = map[string]any{"scenario": rep.Scenario, "seed": rep.Seed, "runs": runs}
	return generic
}

func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// finiteRow zeroes non-finite fields so the row marshals; nonFinite then
// overwrites them with null.
func finiteRow(r Row) Row {
	for _, f := range []*float64{&r.SuccessRate, &r.MeanMs, &r.P50Ms, &r.P90Ms, &r.P99Ms, &r.P999Ms, &r.UtilMean, &r.UtilGap, &r.ReplicaSeconds} {
		if math.IsNaN(*f) || math.IsInf(*f, 0) {
			*f = 0
		}
	}
	return r
}

func nonFinite(r Row) map[string]any {
	out := map[string]any{}
	for k, v := range map[string]float64{"successRate": r.SuccessRate, "meanMs": r.MeanMs, "p50Ms": r.P50Ms, "p90Ms": r.P90Ms,
		"p99Ms": r.P99Ms, "p999Ms": r.P999Ms, "cpuUtilizationMean": r.UtilMean, "cpuUtilizationMaxMinGap": r.UtilGap, "replicaSeconds": r.ReplicaSeconds} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			out[k] = nil
		}
	}
	return out
}

package live

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/report"
)

// Comparison is a live run beside the lab's prediction for the same run of
// the same file.
type Comparison struct {
	Live, Lab *outcome.Result
	// Lab is the lab's run at the scenario's seed, at the live run's
	// phases on the wall clock when KEDA scaled it (Phases). LabSeeds are
	// its runs at that seed and the next ones, each at its seed's phases:
	// the lab's own spread, against which one live run reads.
	LabSeeds []*outcome.Result
	// Replayed are the lab at the scenario's seed given the routing tables
	// the live run had in place of its own, over draws of its policies'
	// random picks (nil when artt-traffic did not route it): the model's
	// data plane and queues judged apart from what each side measured to
	// write its tables, and the spread one run's picks leave.
	Replayed []*outcome.Result
	Lag      Lag
	CPU      []ComponentCPU
	// Cuts are, per scenario event, the seconds from it to the tables'
	// cut of its node (CutTimes); nil when artt-traffic did not route.
	Cuts []float64
	// Phases and PodsIdle are what Lab ran at where KEDA scaled the run
	// (nil and 0 otherwise): the report gives them, and artt-live writes
	// them for artt-lab --phases.
	Phases   *emulator.ScrapePhases
	PodsIdle float64
}

// labSpread is "min–max" of a value over the lab's seeds.
func (c Comparison) labSpread(format string, value func(*outcome.Result) float64) string {
	return spread(format, c.labRuns(), value)
}

// spread is "min–max" of a value over runs; a NaN (a capacity never
// reached) is the highest, "never".
func spread(format string, runs []*outcome.Result, value func(*outcome.Result) float64) string {
	lo, hi, never := math.Inf(1), math.Inf(-1), false
	for _, r := range runs {
		v := value(r)
		if math.IsNaN(v) {
			never = true
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	switch {
	case never && math.IsInf(lo, 1):
		return "never"
	case never:
		return fmt.Sprintf(format+"–never", lo)
	}
	return fmt.Sprintf(format+"–"+format, lo, hi)
}

// labRuns are the lab's runs over its seeds, or its one run.
func (c Comparison) labRuns() []*outcome.Result {
	if len(c.LabSeeds) == 0 {
		return []*outcome.Result{c.Lab}
	}
	return c.LabSeeds
}

// seedsHeading names the lab's seeds in a column's heading.
func seedsHeading(cs []Comparison) string {
	if len(cs) == 0 {
		return "lab"
	}
	return fmt.Sprintf("lab, %d seeds", len(cs[0].labRuns()))
}

// Ratio is live P99 ÷ lab P99: the lab's fidelity for the run.
func (c Comparison) Ratio() float64 { return c.Live.P99Ms / c.Lab.P99Ms }

// WriteReport writes dir/report.md (the comparison, then the lab's own
// table of the live runs), dir/report.json (the live runs as the lab
// writes its own, pods included) and the lab's plots of the live runs.
func WriteReport(dir, title string, cs []Comparison) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: live beside the lab\n\n", title)
	b.WriteString(ComparisonMarkdown(cs))
	b.WriteString(TimelineDetailsMarkdown(cs))
	var lives []*outcome.Result
	for _, c := range cs {
		lives = append(lives, c.Live)
	}
	if err := report.Markdown(&b, title+" (live runs, the lab's table)", lives); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "report.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	var js strings.Builder
	if err := report.JSON(&js, lives); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(js.String()), 0o644); err != nil {
		return "", err
	}
	if _, err := report.Plots(dir, title+" (live)", lives); err != nil {
		return "", err
	}
	return path, nil
}

// ComparisonMarkdown is live beside lab run by run, the two rankings by
// P99, the generator's send-time error, and each component's CPU per
// request and utilisation.
func ComparisonMarkdown(cs []Comparison) string {
	var b strings.Builder
	seeds := seedsHeading(cs)
	fmt.Fprintf(&b, "| run | live P99 ms | lab P99 ms | live ÷ lab | P99 ms, %s | live P50 ms | lab P50 ms | live failures | lab failures | failures, %s | live worst util max–min | lab worst util max–min | replica-seconds |\n", seeds, seeds)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.2f | %s | %.1f | %.1f | %d | %d | %s | %s | %s | %.0f |\n", c.Live.Run, c.Live.P99Ms, c.Lab.P99Ms, c.Ratio(),
			c.labSpread("%.0f", func(r *outcome.Result) float64 { return r.P99Ms }),
			c.Live.P50Ms, c.Lab.P50Ms, failures(c.Live), failures(c.Lab),
			c.labSpread("%.0f", func(r *outcome.Result) float64 { return float64(failures(r)) }),
			report.Percent(c.Live.UtilGap), report.Percent(c.Lab.UtilGap), c.Live.ReplicaSeconds)
	}
	fmt.Fprintf(&b, "\nRanking by P99, live: %s; lab: %s.\n\n", strings.Join(Ranking(cs, func(c Comparison) *outcome.Result { return c.Live }), " < "),
		strings.Join(Ranking(cs, func(c Comparison) *outcome.Result { return c.Lab }), " < "))
	b.WriteString(ReplayedMarkdown(cs))
	b.WriteString(EventsMarkdown(cs))
	b.WriteString(ScalingMarkdown(cs))
	b.WriteString(TimelineMarkdown(cs))
	b.WriteString("The load generator's send time after the scheduled one (µs):\n\n| run | P50 | P99 | max |\n|---|---:|---:|---:|\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.0f |\n", c.Live.Run, c.Lag.P50, c.Lag.P99, c.Lag.Max)
	}
	b.WriteString("\nCPU per request, as the scenario says, as the pods' cgroups counted it, as the requests burned it as their own work, and as the pods' servers spent it beside the work, outside the pods' quotas; and the pods' mean utilisation of their limit:\n\n")
	b.WriteString("| run | component | scenario CPU ms/request | live CPU ms/request | live work ms/request | server beside ms/request | live util mean | lab util mean |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cs {
		for _, cpu := range c.CPU {
			fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s |\n", c.Live.Run, cpu.Component, cpu.ScenarioMs, cpu.LiveMs, cpu.WorkMs, cpu.ServerMs,
				report.Percent(meanUtil(c.Live, cpu.Component)), report.Percent(meanUtil(c.Lab, cpu.Component)))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// ReplayedMarkdown is, for the runs artt-traffic routed, the lab given the
// live run's tables beside the live run and the lab with its own. Empty
// when it routed none.
func ReplayedMarkdown(cs []Comparison) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Replayed == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("The runs artt-traffic routed, with the lab given the tables the live run had (each rule's rows from the time the harness's watch saw them) in place of the ones it computes from its own measurements; at the seed's draw of the lab's own random picks, then over several (the live run's picks are one more draw):\n\n")
			fmt.Fprintf(&b, "| run | live P99 ms | lab P99 ms, its tables | lab P99 ms, live's tables | live ÷ lab, live's tables | P99 ms, live's tables, %d draws of the lab's picks | live worst util max–min | lab, its tables | lab, live's tables |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", len(c.Replayed))
		}
		first := c.Replayed[0]
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f | %.2f | %s | %s | %s | %s |\n", c.Live.Run, c.Live.P99Ms, c.Lab.P99Ms, first.P99Ms, c.Live.P99Ms/first.P99Ms,
			spread("%.0f", c.Replayed, func(r *outcome.Result) float64 { return r.P99Ms }),
			report.Percent(c.Live.UtilGap), report.Percent(c.Lab.UtilGap), report.Percent(first.UtilGap))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// EventsMarkdown is, per injected event and run, the requests lost of
// those started in the minute after it and the P99 of the rest, live
// beside the lab, and the seconds from the event to the tables' cut of its
// node where artt-traffic routed. Empty when the scenario has no events.
func EventsMarkdown(cs []Comparison) string {
	if len(cs) == 0 || len(cs[0].Live.AfterEvents) == 0 {
		return ""
	}
	var b strings.Builder
	seeds := seedsHeading(cs)
	b.WriteString("Each injected event: of the requests started in the minute after it, those lost (failed or timed out) and the P99 of the rest; and, where artt-traffic routed, the seconds until the routing sent the event's node at most 2/3 of the share it sent it before (summed over the routed components: a table's rows averaged, the node's part of the pods where a component was left to least-request):\n\n")
	fmt.Fprintf(&b, "| event | run | live lost | lab lost | lost, %s | live P99 ms | lab P99 ms | P99 ms, %s | live cut after s |\n", seeds, seeds)
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for e, ev := range cs[0].Live.AfterEvents {
		for _, c := range cs {
			live, lab := c.Live.AfterEvents[e], c.Lab.AfterEvents[e]
			cut := "–"
			if c.Cuts != nil {
				cut = seconds(c.Cuts[e])
			}
			fmt.Fprintf(&b, "| %.0fs %s | %s | %d of %d | %d of %d | %s | %s | %s | %s | %s |\n", ev.At, ev.Description, c.Live.Run,
				live.Lost, live.Started, lab.Lost, lab.Started,
				c.labSpread("%.0f", func(r *outcome.Result) float64 { return float64(r.AfterEvents[e].Lost) }),
				tenths(live.P99Ms), tenths(lab.P99Ms),
				c.labSpread("%.0f", func(r *outcome.Result) float64 { return r.AfterEvents[e].P99Ms }), cut)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// tenths is a value to one decimal (a latency in milliseconds, a stage in
// seconds), "–" when nothing was timed.
func tenths(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}

// ScalingMarkdown is, for the runs KEDA scaled, each step up beside the
// lab's: the Ready pods the step's demand needs (the lab's count), how soon
// they were Ready, the most Ready after the step (less the needed: the
// overshoot), the requests lost and the replica-seconds. Empty when no run
// scaled over a step.
func ScalingMarkdown(cs []Comparison) string {
	var b strings.Builder
	for _, c := range cs {
		for i, live := range c.Live.Capacity {
			if b.Len() == 0 {
				b.WriteString("Autoscaled runs, after each step up (time to capacity: until the Ready pods cover the step's demand at the pods' CPU request on a node of mean speed; \"lab\" is at the seed and at the live run's phases on the wall clock, its scrapes and KEDA's polls; the spread over seeds at each seed's own):\n\n")
				seeds := seedsHeading(cs)
				fmt.Fprintf(&b, "| run | component | step at s | to req/s | pods needed | live time to capacity s | lab | %s | live peak Ready | lab | %s | live lost | lab | %s | live replica-seconds | lab |\n", seeds, seeds, seeds)
				b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
			}
			lab := c.Lab.Capacity[i]
			fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %d | %s | %s | %s | %d | %d | %s | %d | %d | %s | %.0f | %.0f |\n", c.Live.Run, live.Component, live.At, live.Rate, live.Needed,
				seconds(live.Seconds), seconds(lab.Seconds), c.labSpread("%.0f", func(r *outcome.Result) float64 { return r.Capacity[i].Seconds }),
				peakReady(c.Live, live), peakReady(c.Lab, lab), c.labSpread("%.0f", func(r *outcome.Result) float64 { return float64(peakReady(r, r.Capacity[i])) }),
				failures(c.Live), failures(c.Lab), c.labSpread("%.0f", func(r *outcome.Result) float64 { return float64(failures(r)) }),
				c.Live.ReplicaSeconds, c.Lab.ReplicaSeconds)
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// TimelineMarkdown is, for each run KEDA scaled, when each stage of the
// pipeline first saw each step up, in seconds after the step, live beside
// the lab at the seed. Empty when no run kept a timeline.
func TimelineMarkdown(cs []Comparison) string {
	var b strings.Builder
	for _, c := range cs {
		steps := min(len(c.Live.Timeline), len(c.Lab.Timeline))
		if steps == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("The autoscaling pipeline after each step up: when each stage first saw the step, in seconds after it, live / lab (– never); the pods the component had at the step, live / lab:\n\n")
		}
		fmt.Fprintf(&b, "%s:\n\n| stage |", c.Live.Run)
		for _, l := range c.Live.Timeline[:steps] {
			fmt.Fprintf(&b, " %s at %.0f s |", l.Component, l.At)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", steps) + "\n| pods at the step |")
		for k := range steps {
			fmt.Fprintf(&b, " %d / %d |", c.Live.Timeline[k].Before, c.Lab.Timeline[k].Before)
		}
		for _, st := range outcome.Stages() {
			fmt.Fprintf(&b, "\n| %s |", st)
			for k := range steps {
				fmt.Fprintf(&b, " %s / %s |", tenths(c.Live.Timeline[k].Seconds[st]), tenths(c.Lab.Timeline[k].Seconds[st]))
			}
		}
		b.WriteString("\n\n")
		if c.Phases != nil {
			b.WriteString(phasesLine(c.Phases, c.PodsIdle))
		}
	}
	return b.String()
}

// phasesLine says where a run fell on the wall clock, as the lab was given
// it.
func phasesLine(ph *emulator.ScrapePhases, idle float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The lab at this run's phases: the load's start %.3f s past the hour, KEDA's first poll %.3f s after it, the initial pods idle %.1f s before it; each address's scrape offset (s):", ph.Wall, ph.FirstPoll, idle)
	for _, name := range slices.Sorted(maps.Keys(ph.Slots)) {
		fmt.Fprintf(&b, " %s", name)
		for _, o := range ph.Slots[name] {
			fmt.Fprintf(&b, " %.3f", o)
		}
		b.WriteString(";")
	}
	return strings.TrimSuffix(b.String(), ";") + ".\n\n"
}

// TimelineDetailsMarkdown is what each stage saw, live and in the lab:
// artt-scaler's inputs and the count it asked for, the HPA's decisions,
// the first new pod's name. Empty when no run kept a timeline.
func TimelineDetailsMarkdown(cs []Comparison) string {
	var b strings.Builder
	for _, c := range cs {
		for k := range min(len(c.Live.Timeline), len(c.Lab.Timeline)) {
			live, lab := c.Live.Timeline[k], c.Lab.Timeline[k]
			fmt.Fprintf(&b, "%s, %s, the step at %.0f s: what each stage saw first\n\n| stage | live | lab |\n|---|---|---|\n", c.Live.Run, live.Component, live.At)
			for _, st := range outcome.Stages() {
				if live.Detail[st] != "" || lab.Detail[st] != "" {
					fmt.Fprintf(&b, "| %s | %s | %s |\n", st, live.Detail[st], lab.Detail[st])
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// peakReady is the most Ready pods of a step's component at a sample
// after the step.
func peakReady(r *outcome.Result, s outcome.StepCapacity) int {
	peak := 0
	for _, p := range r.Series {
		if p.T > s.At {
			peak = max(peak, p.Replicas[s.Component])
		}
	}
	return peak
}

func seconds(v float64) string {
	if math.IsNaN(v) {
		return "never"
	}
	return fmt.Sprintf("%.0f", v)
}

// SummaryMarkers are the markers of a scenario's block in a Markdown file
// that --summary replaces (docs/live-results.md).
func SummaryMarkers(scenario string) (begin, end string) {
	return "<!-- artt-live " + scenario + " begin -->", "<!-- artt-live " + scenario + " end -->"
}

// WriteSummary replaces a scenario's block in the Markdown file at path
// with the comparison, headed by when and where it ran.
func WriteSummary(path, scenario, heading string, cs []Comparison) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	begin, end := SummaryMarkers(scenario)
	out, err := report.IntoMarkdownBetween(string(doc), begin, end, heading+"\n\n"+ComparisonMarkdown(cs))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// Ranking is the runs' labels from the lowest P99 to the highest, each
// once: the repeats of a run share one lab prediction.
func Ranking(cs []Comparison, pick func(Comparison) *outcome.Result) []string {
	sorted := slices.Clone(cs)
	slices.SortStableFunc(sorted, func(a, b Comparison) int {
		x, y := pick(a).P99Ms, pick(b).P99Ms
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	var out []string
	for _, c := range sorted {
		if run := pick(c).Run; !slices.Contains(out, run) {
			out = append(out, run)
		}
	}
	return out
}

func failures(r *outcome.Result) int64 { return r.Timeouts + r.Errors }

// PrintSummary writes one line per run: live and lab P99 and their ratio.
func PrintSummary(w io.Writer, cs []Comparison) {
	for _, c := range cs {
		fmt.Fprintf(w, "%-16s live P99 %7.1f ms  lab P99 %7.1f ms  live/lab %.2f  failures live %d lab %d\n",
			c.Live.Run, c.Live.P99Ms, c.Lab.P99Ms, c.Ratio(), failures(c.Live), failures(c.Lab))
	}
}

// meanUtil is a component's mean pod utilisation in a result.
func meanUtil(r *outcome.Result, component string) float64 {
	sum, n := 0.0, 0
	for _, p := range r.Pods {
		if p.Component == component {
			sum += p.Utilization
			n++
		}
	}
	return sum / float64(n)
}

package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// verdict writes the report's answers before its tables, a line a
// question: which routing had the shortest tail at equal replicas, where
// each autoscaler stands against the HPA's frontier at its cost, and which
// runs lost least after each event.
func verdict(b *strings.Builder, results []*outcome.Result) {
	lines := slices.Concat(routingVerdict(results), autoscalingVerdict(results), eventVerdicts(results))
	if len(lines) == 0 {
		return
	}
	b.WriteString("In short:\n\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString("\n")
}

// routingVerdict ranks the runs that only route (every replica count the
// same) by requests lost, then P99.
func routingVerdict(results []*outcome.Result) []string {
	var runs []*outcome.Result
	for _, r := range results {
		if !judged(r) && !r.Frontier && !r.Floor {
			runs = append(runs, r)
		}
	}
	if len(runs) < 2 {
		return nil
	}
	lost := func(r *outcome.Result) int64 { return r.Timeouts + r.Errors }
	slices.SortStableFunc(runs, func(a, b *outcome.Result) int {
		return cmp.Or(cmp.Compare(lost(a), lost(b)), cmp.Compare(a.P99Ms, b.P99Ms))
	})
	best := runs[0]
	var level, losing []string
	for _, r := range runs[1:] {
		if lost(r) == lost(best) {
			level = append(level, r.Run+" "+ms(r.P99Ms))
		} else {
			losing = append(losing, fmt.Sprintf("%s %d", r.Run, lost(r)))
		}
	}
	line := fmt.Sprintf("Routing at equal replicas: the shortest P99 among the runs that lost fewest (%d) is %s's, %s ms", lost(best), best.Run, ms(best.P99Ms))
	if len(level) > 0 {
		line += " (then " + strings.Join(level, ", ") + ")"
	}
	if len(losing) > 0 {
		line += "; requests lost: " + strings.Join(losing, ", ")
	}
	return []string{line + "."}
}

// autoscalingVerdict is each autoscaled run's P99 against the HPA
// frontier's at its replica-seconds.
func autoscalingVerdict(results []*outcome.Result) []string {
	f := NewSweep(results, Sweeps[0].Sweep)
	if f == nil {
		return nil
	}
	var parts []string
	for _, r := range results {
		if !judged(r) {
			continue
		}
		if fp, ok := f.At(r.ReplicaSeconds, P99); ok {
			ff, _ := f.At(r.ReplicaSeconds, Failures)
			parts = append(parts, fmt.Sprintf("%s %s (lost %d, the frontier %.0f)", r.Run, strconv.FormatFloat(r.P99Ms/fp, 'f', 2, 64), r.Timeouts+r.Errors, ff))
		} else {
			parts = append(parts, r.Run+" "+f.Dominance(r.ReplicaSeconds, r.P99Ms).String())
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{"Autoscaling at equal cost, P99 ÷ the HPA frontier's at the run's replica-seconds (below 1 is a shorter tail for the same cost), and requests lost beside the frontier's: " + strings.Join(parts, ", ") + "."}
}

// eventVerdicts names, per injected event, the runs that lost fewest
// requests in the minute after it, and the one that lost most.
func eventVerdicts(results []*outcome.Result) []string {
	if len(results) == 0 {
		return nil
	}
	var lines []string
	for i, ev := range results[0].AfterEvents {
		least, most := int64(-1), int64(-1)
		var fewest []string
		var worst string
		for _, r := range results {
			if i >= len(r.AfterEvents) {
				continue
			}
			n := r.AfterEvents[i].Lost
			switch {
			case least < 0 || n < least:
				least, fewest = n, []string{r.Run}
			case n == least:
				fewest = append(fewest, r.Run)
			}
			if n > most {
				most, worst = n, r.Run
			}
		}
		line := fmt.Sprintf("After %s at %.0f s: %s lost fewest (%d of the requests started in the minute after)", ev.Description, ev.At, strings.Join(fewest, ", "), least)
		if most > least {
			line += fmt.Sprintf(", %s most (%d)", worst, most)
		}
		lines = append(lines, line+".")
	}
	return lines
}

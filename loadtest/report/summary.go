package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// SummaryBegin and SummaryEnd mark the block of a Markdown file that
// WriteSummary replaces (docs/results.md's table of shipped results).
const (
	SummaryBegin = "<!-- artt-lab summary begin -->"
	SummaryEnd   = "<!-- artt-lab summary end -->"
)

// Summary writes one compact table over several scenarios' results: per
// run its P99, success, failures, cross-node calls, the requests lost in
// the minutes after injected events, and, for autoscaled runs beside an HPA
// sweep, P99 and its excess over the floor against the frontier's at equal
// cost, and the share closed of the room to the oracles' frontiers (with and
// without lookahead). The sweeps' own runs are left out (the scenario
// reports list them).
func Summary(w io.Writer, scenarios []string, results [][]*outcome.Result) error {
	var b strings.Builder
	b.WriteString("| scenario | run | P99 ms | success | failed | cross-node calls | lost after events | P99 ÷ HPA frontier | excess ÷ HPA frontier's | oracle's room closed | no-lookahead room closed |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, rs := range results {
		f := NewFrontier(rs)
		floor := FloorP99(rs)
		oracle, present := NewSweep(rs, "oracle"), NewSweep(rs, "oracle-0s")
		for _, r := range rs {
			if r.Frontier {
				continue
			}
			lost := "–"
			if len(r.AfterEvents) > 0 {
				var n int64
				for _, ev := range r.AfterEvents {
					n += ev.Lost
				}
				lost = strconv.FormatInt(n, 10)
			}
			ratio, excess, closed, closedNow := "–", "–", "–", "–"
			if f != nil && judged(r) {
				if fp, ok := f.At(r.ReplicaSeconds, P99); ok {
					ratio = strconv.FormatFloat(r.P99Ms/fp, 'f', 2, 64)
				} else if d := f.Dominance(r.ReplicaSeconds, r.P99Ms); d != Outside {
					ratio = d.String()
				}
				excess = ratioOrDash(f.ExcessRatio(r, floor))
				closed, closedNow = closedText(LimitGapOf(r, f, oracle, floor)), closedText(LimitGapOf(r, f, present, floor))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", scenarios[i], r.Run, ms(r.P99Ms), SuccessPercent(r.SuccessRate),
				r.Timeouts+r.Errors, Percent(r.CrossNodeFraction), lost, ratio, excess, closed, closedNow)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// closedText is a gap's share closed, or "at the limit" where the gap is
// under a tenth of the HPA frontier's excess (a share of it is noise).
func closedText(r LimitGap) string {
	if r.AtTheLimit() {
		return "at the limit"
	}
	return Percent(r.Closed)
}

// IntoMarkdown replaces the text between SummaryBegin and SummaryEnd in doc
// with table, or returns an error naming the missing marker.
func IntoMarkdown(doc, table string) (string, error) {
	return IntoMarkdownBetween(doc, SummaryBegin, SummaryEnd, table)
}

// IntoMarkdownBetween replaces what stands between the markers begin and
// end of doc with text.
func IntoMarkdownBetween(doc, begin, end, text string) (string, error) {
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %s … %s block to replace", begin, end)
	}
	return doc[:i+len(begin)] + "\n" + text + doc[j:], nil
}

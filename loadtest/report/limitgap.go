package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// LimitGap is the gap to the limit at one cost, how much a scaler could
// still win there (the reports call it the room): the HPA frontier's P99
// against a clairvoyant limit's frontier at the same replica-seconds, and
// how much of that gap a run closed.
type LimitGap struct {
	HPAP99, LimitP99 float64
	// Ms is HPAP99 − LimitP99; Fraction the gap over the HPA frontier's
	// excess over the floor (NaN without a floor).
	Ms, Fraction float64
	// Closed is the run's share of the gap: (HPA frontier P99 − run P99)
	// ÷ gap; 1 is the limit's tail, 0 the HPA's, below 0 worse than it.
	Closed float64
	// OK is false where either frontier does not span the run's cost.
	OK bool
}

// atTheLimit is the gap, as a fraction of the HPA frontier's excess,
// under which no scaler has anything left to win.
const atTheLimit = 0.1

// LimitGapOf measures run r's gap to limit, with hpa the HPA's
// frontier and floor the floor's P99.
func LimitGapOf(r *outcome.Result, hpa, limit *Frontier, floor float64) LimitGap {
	gap := LimitGap{HPAP99: math.NaN(), LimitP99: math.NaN(), Ms: math.NaN(), Fraction: math.NaN(), Closed: math.NaN()}
	if hpa == nil || limit == nil {
		return gap
	}
	hp, okH := hpa.At(r.ReplicaSeconds, P99)
	lp, okL := limit.At(r.ReplicaSeconds, P99)
	if !okH || !okL {
		return gap
	}
	gap.HPAP99, gap.LimitP99, gap.Ms, gap.OK = hp, lp, hp-lp, true
	if !math.IsNaN(floor) && hp > floor {
		gap.Fraction = gap.Ms / (hp - floor)
	}
	if gap.Ms > 0 {
		gap.Closed = (hp - r.P99Ms) / gap.Ms
	}
	return gap
}

// AtTheLimit reports whether the gap is under a tenth of the HPA
// frontier's excess.
func (r LimitGap) AtTheLimit() bool { return r.OK && r.Fraction < atTheLimit }

// limitGapTables writes, for scenarios with the HPA sweep and the oracles',
// each judged run's gap to every limit and its share closed, then
// its failures against every frontier's at its cost.
func limitGapTables(b *strings.Builder, results []*outcome.Result) {
	hpa := NewFrontier(results)
	if hpa == nil {
		return
	}
	var limits []*Frontier
	var names []string
	for _, l := range Limits {
		if f := NewSweep(results, l.Sweep); f != nil {
			limits, names = append(limits, f), append(names, l.Name)
		}
	}
	if len(limits) == 0 {
		return
	}
	floor := FloorP99(results)
	b.WriteString("\nRoom: the HPA frontier's P99 less each clairvoyant limit's at the run's replica-seconds (ms, and as a share of the HPA frontier's excess over the floor), and the share of it the run closed (100%: the limit's tail; 0: the HPA frontier's; below 0, a longer tail than the HPA frontier's at that cost; above 100%, a shorter one than the limit's, whose sweep is interpolated between its targets).\n\n| run | replica-seconds | P99 ms | HPA frontier P99 |")
	for _, n := range names {
		fmt.Fprintf(b, " %s P99 | room | closed |", n)
	}
	b.WriteString("\n|---|---:|---:|---:|" + strings.Repeat("---:|---:|---:|", len(names)) + "\n")
	var atLimit []string
	for _, r := range results {
		if !judged(r) {
			continue
		}
		first := LimitGapOf(r, hpa, limits[0], floor)
		fmt.Fprintf(b, "| %s | %.0f | %s | %s |", r.Run, r.ReplicaSeconds, ms(r.P99Ms), ms(first.HPAP99))
		for _, l := range limits {
			gap := LimitGapOf(r, hpa, l, floor)
			fmt.Fprintf(b, " %s | %s | %s |", ms(gap.LimitP99), gapText(gap), closedText(gap))
		}
		b.WriteString("\n")
		if first.AtTheLimit() {
			atLimit = append(atLimit, r.Run)
		}
	}
	if len(atLimit) > 0 {
		fmt.Fprintf(b, "\nAt the limit (the %s's room under a tenth of the HPA frontier's excess): %s. No scaler behind the HPA has much to win there.\n", names[0], strings.Join(atLimit, ", "))
	}
	failuresTable(b, results, hpa, limits, names)
}

func gapText(r LimitGap) string {
	if !r.OK {
		return "outside"
	}
	s := ms(r.Ms) + " ms"
	if !math.IsNaN(r.Fraction) {
		s += " (" + Percent(r.Fraction) + ")"
	}
	return s
}

// failuresTable writes each judged run's failures beside the HPA's, KPA's
// and every limit's frontier at its cost.
func failuresTable(b *strings.Builder, results []*outcome.Result, hpa *Frontier, limits []*Frontier, names []string) {
	fronts, heads := []*Frontier{hpa}, []string{"HPA"}
	if kpa := NewSweep(results, "kpa"); kpa != nil {
		fronts, heads = append(fronts, kpa), append(heads, "KPA")
	}
	fronts, heads = append(fronts, limits...), append(heads, names...)
	b.WriteString("\nRequests failed (timeouts and errors) against each frontier's at the run's replica-seconds (– outside its costs).\n\n| run | failed |")
	for _, h := range heads {
		fmt.Fprintf(b, " %s |", h)
	}
	b.WriteString("\n|---|---:|" + strings.Repeat("---:|", len(heads)) + "\n")
	for _, r := range results {
		if !judged(r) {
			continue
		}
		fmt.Fprintf(b, "| %s | %d |", r.Run, r.Timeouts+r.Errors)
		for _, f := range fronts {
			v, ok := f.At(r.ReplicaSeconds, Failures)
			text := "–"
			if ok {
				text = strconv.FormatFloat(v, 'f', 0, 64)
			}
			fmt.Fprintf(b, " %s |", text)
		}
		b.WriteString("\n")
	}
}

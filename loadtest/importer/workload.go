package importer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// trace is the entry's request rate, one row per step.
type trace struct {
	step  time.Duration
	times []time.Time
	rates []float64
	// filled counts rows Prometheus had no value for, given the previous
	// row's (the next row's at the start).
	filled int
}

// readTrace reads the entry's served request rate over the period, each
// row the rate over its own step (the rows tile the period).
func readTrace(ctx context.Context, q querier, o Options, entry string, est *estimates) (trace, error) {
	t := trace{step: o.Step}
	expr := fmt.Sprintf(`sum(rate(istio_requests_total{reporter="destination",destination_workload_namespace=%s,destination_workload=%s}[%ds]))`,
		quote(o.Namespace), quote(entry), int(o.Step.Seconds()))
	start := o.Until.Add(-o.Since).Add(o.Step)
	stream, err := q.rangeOf(ctx, expr, start, o.Until, o.Step)
	if err != nil {
		return t, fmt.Errorf("the entry's request rate: %w", err)
	}
	at := map[int64]float64{}
	for _, p := range stream.Values {
		at[p.Timestamp.Time().Unix()] = float64(p.Value)
	}
	for ts := start; !ts.After(o.Until); ts = ts.Add(o.Step) {
		t.times = append(t.times, ts.UTC())
		if v, ok := at[ts.Unix()]; ok && v >= 0 {
			t.rates = append(t.rates, v)
		} else {
			t.rates = append(t.rates, -1) // filled below
		}
	}
	known := 0
	for _, r := range t.rates {
		if r >= 0 {
			known++
		}
	}
	if known < 2 {
		return t, fmt.Errorf("the entry %s's request rate has %d of %d steps in Prometheus (query %s)", entry, known, len(t.rates), expr)
	}
	last := -1.0
	for i, r := range t.rates {
		if r < 0 {
			t.filled++
			if last < 0 {
				for _, next := range t.rates[i:] {
					if next >= 0 {
						last = next
						break
					}
				}
			}
			t.rates[i] = last
		}
		last = t.rates[i]
	}
	if t.filled > 0 {
		est.add("workload", "%d of %d steps had no rate in Prometheus and repeat the neighbouring step's", t.filled, len(t.rates))
	}
	return t, nil
}

// csv writes the trace as artt-lab reads it: a header, then time and rate.
func (t trace) csv() []byte {
	var b strings.Builder
	b.WriteString("time,requests_per_second\n")
	for i, ts := range t.times {
		b.WriteString(ts.Format(time.RFC3339))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(t.rates[i], 'f', -1, 64))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// bounds are the smallest and largest rate.
func (t trace) bounds() (lo, hi float64) {
	lo, hi = t.rates[0], t.rates[0]
	for _, r := range t.rates {
		lo, hi = min(lo, r), max(hi, r)
	}
	return lo, hi
}

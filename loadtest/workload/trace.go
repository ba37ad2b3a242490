package workload

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// NASA is the first week (1995-07-01 to 07-07) of the NASA Kennedy Space
// Center HTTP trace in requests per minute, which its terms allow to
// redistribute. Minutes without requests are omitted, as in the source.
//
//go:embed traces/nasa_http_1995_07_01-07_per_minute.csv
var NASA []byte

// Series is a trace: one value per row at a fixed step.
type Series struct {
	Values []float64
	// Filled counts rows added as zero for omitted timestamps; Spliced
	// counts gaps longer than maxFill steps that were treated as missing
	// data and joined.
	Filled, Spliced int
}

// maxFill is the longest run of omitted rows read as zero; longer gaps are
// missing data (the NASA trace's outages) and are spliced out.
const maxFill = 10

// ColumnError is a value column missing from a trace's header.
type ColumnError struct {
	Column string
	Header []string
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("trace column %q not in header %s", e.Column, Clip(strings.Join(e.Header, ",")))
}

// clipped is how much of a line from a file an error quotes.
const clipped = 80

// Clip shortens a line of a file for an error, which quotes no more of a
// file than its offending line, and not all of a long one.
func Clip(line string) string {
	if len(line) <= clipped {
		return line
	}
	cut := clipped
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return line[:cut] + fmt.Sprintf("… (%d bytes)", len(line))
}

// ParseCSV reads a CSV with a header. column names the value column ("" =
// the last). When the first column holds timestamps, omitted rows (shorter
// gaps than maxFill steps) are filled with zeros at the smallest step seen.
func ParseCSV(data []byte, column string) (Series, error) {
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		return Series{}, fmt.Errorf("trace header: %w", err)
	}
	col := len(header) - 1
	if column != "" {
		col = -1
		for i, h := range header {
			if strings.EqualFold(strings.TrimSpace(h), column) {
				col = i
			}
		}
		if col < 0 {
			return Series{}, &ColumnError{Column: column, Header: header}
		}
	}
	var times []time.Time
	var values []float64
	timed := true
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Series{}, fmt.Errorf("trace line %d: %w", line, err)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return Series{}, fmt.Errorf("trace line %d column %s = %q: want a number ≥ 0", line, Clip(header[col]), Clip(rec[col]))
		}
		values = append(values, v)
		if timed {
			ts, ok := parseTime(rec[0])
			if !ok {
				timed = false
			}
			times = append(times, ts)
		}
	}
	if len(values) == 0 {
		return Series{}, errors.New("trace has no rows")
	}
	if !timed || len(values) < 2 {
		return Series{Values: values}, nil
	}
	return fillGaps(times, values), nil
}

func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02 15:04:05", time.RFC3339} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func fillGaps(times []time.Time, values []float64) Series {
	step := time.Duration(math.MaxInt64)
	for i := 1; i < len(times); i++ {
		if d := times[i].Sub(times[i-1]); d > 0 && d < step {
			step = d
		}
	}
	s := Series{Values: []float64{values[0]}}
	for i := 1; i < len(times); i++ {
		missing := int(times[i].Sub(times[i-1])/step) - 1
		switch {
		case missing > maxFill:
			s.Spliced++
		case missing > 0:
			for range missing {
				s.Values = append(s.Values, 0)
			}
			s.Filled += missing
		}
		s.Values = append(s.Values, values[i])
	}
	return s
}

// Replay maps rows start… of the series onto a rate: each row lasts
// secondsPerRow, and the rows needed to cover duration are scaled linearly
// from their own [min, max] onto [minRate, maxRate]. The rows before start
// are the rate's Past, on the same scale.
func Replay(s Series, start int, secondsPerRow, duration, minRate, maxRate float64) (Rate, error) {
	need := math.Ceil(duration / secondsPerRow)
	// Compared as floats: a tiny secondsPerRow or a huge start overflows an int.
	if !(secondsPerRow > 0) || start < 0 || float64(start)+need > float64(len(s.Values)) {
		return Rate{}, fmt.Errorf("trace has %d rows; replaying %.0f s at %g s per row from row %d needs %.3g", len(s.Values), duration, secondsPerRow, start, float64(start)+need)
	}
	rows := int(need)
	seg := s.Values[start : start+rows]
	lo, hi := seg[0], seg[0]
	for _, v := range seg {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	scale := func(v float64) float64 {
		frac := 0.0
		if hi > lo {
			frac = (v - lo) / (hi - lo)
		}
		return minRate + frac*(maxRate-minRate)
	}
	r := Rate{Starts: make([]float64, rows), Values: make([]float64, rows)}
	for i, v := range seg {
		r.Starts[i] = float64(i) * secondsPerRow
		r.Values[i] = scale(v)
	}
	// The rows before the start, on the same scale (a quieter row maps
	// below minRate, never below 0).
	r.Past = Past{Values: make([]float64, start), Step: secondsPerRow, Cycles: 1}
	for i, v := range s.Values[:start] {
		r.Past.Values[i] = math.Max(0, scale(v))
	}
	return r, nil
}

package workload

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRateAtAndMean(t *testing.T) {
	r := Rate{Starts: []float64{0, 10, 20}, Values: []float64{5, 0, 20}}
	for _, c := range []struct{ t, want float64 }{{0, 5}, {9.9, 5}, {10, 0}, {15, 0}, {25, 20}} {
		if got := r.At(c.t); got != c.want {
			t.Errorf("At(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	if got := r.Mean(30); math.Abs(got-(50+200)/30.0) > 1e-12 {
		t.Errorf("Mean(30) = %v", got)
	}
}

func TestPoissonArrivalsMatchRate(t *testing.T) {
	r := Rate{Starts: []float64{0, 100}, Values: []float64{50, 0}}
	rng := rand.New(rand.NewPCG(1, 1))
	n := 0
	for at := r.Next(0, rng); !math.IsInf(at, 1); at = r.Next(at, rng) {
		if at >= 100 {
			t.Fatalf("arrival at %v while the rate is 0", at)
		}
		n++
	}
	// 5,000 expected, standard deviation ≈ 71.
	if n < 4700 || n > 5300 {
		t.Errorf("%d arrivals in 100 s at 50/s", n)
	}
}

func TestParseCSVFillsOmittedMinutesAndSplicesGaps(t *testing.T) {
	csv := "minute,count\n" +
		"1995-07-01 00:00:00,10\n" +
		"1995-07-01 00:01:00,20\n" +
		"1995-07-01 00:04:00,30\n" + // two omitted minutes → zeros
		"1995-07-01 03:00:00,40\n" // a gap of 176 minutes → missing data, spliced
	s, err := ParseCSV([]byte(csv), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{10, 20, 0, 0, 30, 40}
	if len(s.Values) != len(want) {
		t.Fatalf("values %v, want %v", s.Values, want)
	}
	for i := range want {
		if s.Values[i] != want[i] {
			t.Fatalf("values %v, want %v", s.Values, want)
		}
	}
	if s.Filled != 2 || s.Spliced != 1 {
		t.Errorf("filled %d spliced %d, want 2 and 1", s.Filled, s.Spliced)
	}
}

func TestParseCSVErrors(t *testing.T) {
	cases := []struct{ csv, column, says string }{
		{"a,b\n1,x\n", "", `line 2 column b = "x"`},
		{"a,b\n1,-3\n", "", "want a number ≥ 0"},
		{"a,b\n1,2\n", "Volume", `column "Volume" not in header`},
		{"a,b\n", "", "no rows"},
	}
	for _, c := range cases {
		if _, err := ParseCSV([]byte(c.csv), c.column); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseCSV(%q): error %v, want %q", c.csv, err, c.says)
		}
	}
}

func TestReplayMapsLinearly(t *testing.T) {
	s := Series{Values: []float64{0, 5, 10, 100, 7}}
	r, err := Replay(s, 1, 2, 6, 100, 200)
	if err != nil {
		t.Fatal(err)
	}
	// Rows 5, 10, 100 span [5, 100] → [100, 200].
	want := []float64{100, 100 + 100*5.0/95, 200}
	for i, w := range want {
		if math.Abs(r.Values[i]-w) > 1e-9 || r.Starts[i] != float64(2*i) {
			t.Fatalf("rate %v at %v, want %v", r.Values, r.Starts, want)
		}
	}
	if _, err := Replay(s, 3, 2, 6, 1, 2); err == nil {
		t.Error("replaying past the end: no error")
	}
	// Row 0 is before the start, on the run's scale: 0 maps to 100 −
	// 100 × 5 ÷ 95, below minRate.
	if past := r.Past; past.Step != 2 || len(past.Values) != 1 || math.Abs(past.Values[0]-(100-100*5.0/95)) > 1e-9 {
		t.Errorf("past %+v, want one row of 2 s at %v", past, 100-100*5.0/95)
	}
}

// Rows 10, 20, 30 of 2 s each before the start: [−5, −1] holds a second of
// the first, two of the second and one of the third.
func TestPastMeanIntegratesItsRows(t *testing.T) {
	p := Past{Values: []float64{10, 20, 30}, Step: 2, Cycles: 1}
	for _, tc := range []struct {
		a, b, want float64
		ok         bool
	}{
		{-5, -1, (10 + 40 + 30) / 4.0, true},
		{-6, 0, 20, true},
		{-1.5, -0.5, 30, true},
		{-7, 0, math.NaN(), false},
		{-1, 1, math.NaN(), false},
	} {
		got, ok := p.Mean(tc.a, tc.b)
		if ok != tc.ok || (ok && math.Abs(got-tc.want) > 1e-9) {
			t.Errorf("Mean(%v, %v) = %v, %v; want %v, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

// Steps of 40 from 0 s and 280 from 2.5 s, repeated over a period of 4 s,
// three times: each second's mean, the third split half and half, then the
// same cycle again back to −12 s.
func TestRepeatedPeriodsOfSteps(t *testing.T) {
	r := Rate{Starts: []float64{0, 2.5}, Values: []float64{40, 280}}
	p := r.Repeated(4, 3)
	want := []float64{40, 40, 160, 280}
	if p.Step != 1 || p.Cycles != 3 || p.Seconds() != 12 {
		t.Fatalf("past %+v, want 4 rows of 1 s, 3 cycles", p)
	}
	for i, w := range want {
		if math.Abs(p.Values[i]-w) > 1e-9 {
			t.Fatalf("rows %v, want %v", p.Values, want)
		}
	}
	for _, tc := range []struct{ a, b, want float64 }{{-12, -11, 40}, {-10, -8, 220}, {-1, 0, 280}, {-4, 0, 130}} {
		if got, ok := p.Mean(tc.a, tc.b); !ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Mean(%v, %v) = %v, %v; want %v", tc.a, tc.b, got, ok, tc.want)
		}
	}
	if _, ok := p.Mean(-13, 0); ok {
		t.Error("the past reached back past its three cycles")
	}
}

func TestEmbeddedNASA(t *testing.T) {
	s, err := ParseCSV(NASA, "")
	if err != nil {
		t.Fatal(err)
	}
	// 7 days of minutes; the week has no gap longer than maxFill.
	if len(s.Values) != 7*24*60 || s.Spliced != 0 {
		t.Errorf("%d rows (%d filled, %d spliced), want 10080", len(s.Values), s.Filled, s.Spliced)
	}
}

func TestRateMaxOverAWindow(t *testing.T) {
	r := Rate{Starts: []float64{0, 10, 20, 30}, Values: []float64{5, 50, 20, 1}}
	for _, c := range []struct{ a, b, want float64 }{
		{0, 9.9, 5},  // before the step
		{0, 10, 50},  // the step's start is in the window
		{12, 25, 50}, // inside the peak, then lower
		{21, 40, 20}, // falling: the window's first segment is its highest
		{35, 99, 1},  // past the last start
		{15, 5, 50},  // an empty window is the rate at its start
	} {
		if got := r.Max(c.a, c.b); got != c.want {
			t.Errorf("Max(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// The two inputs that once sliced out of range: rows so short that the
// rows needed overflow an int, and a start so far that start + rows does.
func TestReplayRefusesRowsOrAStartPastAnInt(t *testing.T) {
	s := Series{Values: []float64{1, 2, 3}}
	cases := []struct {
		start         int
		secondsPerRow float64
	}{{0, 1e-300}, {math.MaxInt, 1}}
	for _, c := range cases {
		if _, err := Replay(s, c.start, c.secondsPerRow, 60, 1, 2); err == nil || !strings.Contains(err.Error(), "trace has 3 rows") {
			t.Errorf("start %d at %g s a row: %v, want the rows refused", c.start, c.secondsPerRow, err)
		}
	}
}

// An error quotes at most the offending line, and of a long one its start.
func TestParseCSVErrorsQuoteLittleOfTheFile(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	for _, csv := range []string{"secret," + long + "\n1,2\n", "a,b\n1," + long + "\nnext-line-secret,3\n"} {
		_, err := ParseCSV([]byte(csv), "nope")
		if err == nil {
			err = errors.New("")
		}
		if _, err2 := ParseCSV([]byte(csv), ""); err2 != nil {
			err = errors.Join(err, err2)
		}
		if msg := err.Error(); len(msg) > 400 || strings.Contains(msg, "next-line-secret") {
			t.Errorf("error quotes %d bytes of the file: %.200s", len(msg), msg)
		}
	}
}

package emulator

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// calendarScenario is oracleScenario's backend under ARTT-HPA with the
// given scaler metadata: 10 ms per request on a 0.5-core request, scraped
// every 5 s, so that a calendar step of 15 s holds three scrapes.
func calendarScenario(t *testing.T, metadata string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(fmt.Appendf(nil, `
name: calendar
duration: 17m
seed: 3
cluster: {nodes: [{name: node1, cores: 64}]}
application:
  components:
    - {name: backend, cpuPerRequest: 10ms, demand: constant, cpuRequest: 0.5, replicas: 2, maxReplicas: 40, autoscale: true}
workload: {type: constant, rate: 50}
control: {podStartup: 20s, sampleInterval: 5s}
runs: [{routing: least-request, autoscaling: artt, scalerMetadata: {%s}}]
`, metadata))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// sessions is 50 requests per second with a session of 200 from 300 s to
// 390 s in each period of 600 s: longer than the HPA's scale-down window
// (5 minutes), so the second session starts from the 2 pods 50 need.
var sessions = workload.Rate{Starts: []float64{0, 300, 390, 900, 990}, Values: []float64{50, 200, 50, 200, 50}}

// thresholdAt is the threshold the sample at `at` records: a poll at the
// same instant runs after the sample, so it is the poll's a period before.
func thresholdAt(t *testing.T, r *outcome.Result, at float64) float64 {
	t.Helper()
	for _, p := range r.Series {
		if p.T == at {
			return p.Threshold["backend"]
		}
	}
	t.Fatalf("no sample at %.0fs", at)
	return 0
}

// In the first period the lab's Prometheus holds no earlier one, and the
// calendar's threshold is lead's to the bit. In the second, at the poll of
// 870 s, the calendar sees its 15 s sample ending at 315 s rise from about
// 50 to about 200 within the lead time (the lab's 35 s, a sync and a pod
// start: three samples), so θ ≈ 100 × 50 ÷ 200 = 25, below lead's floor of
// 50, and the HPA asks for the four or more pods 200 requests per second
// need at the request, ready at 890 s. Lead sees nothing coming and holds
// 2 pods until the rise shows.
func TestTheLabsCalendarScalesBeforeARecurringRise(t *testing.T) {
	leadSc, calSc := calendarScenario(t, ""), calendarScenario(t, "normalization: calendar, calendarPeriod: 10m, calendarStep: 15s")
	lead := runWith(t, leadSc, sessions, onTheGrid(leadSc))
	cal := runWith(t, calSc, sessions, onTheGrid(calSc))
	for _, at := range []float64{270, 285, 300, 315, 330} {
		if l, c := thresholdAt(t, lead, at), thresholdAt(t, cal, at); l != c {
			t.Errorf("first period, %.0fs: calendar θ %v, lead's %v: with no history they must agree", at, c, l)
		}
	}
	if l, c := thresholdAt(t, lead, 885), thresholdAt(t, cal, 885); !(c > 15 && c < 35) || l < 50 {
		t.Errorf("the poll at 870 s (sampled at 885 s): calendar θ %.1f (want about 25), lead's %.1f (want at least its floor of 50)", c, l)
	}
	if l, c := readyAt(t, lead, 885), readyAt(t, cal, 885); l != 2 || c != 2 {
		t.Errorf("at 885 s: %d ready under lead, %d under the calendar; want 2 and 2 (asked-for pods take 20 s)", l, c)
	}
	if l, c := readyAt(t, lead, 900), readyAt(t, cal, 900); l != 2 || c < 4 {
		t.Errorf("at 900 s: %d ready under lead, %d under the calendar; want 2, and at least 4 ready since 890 s", l, c)
	}
	if math.IsNaN(cal.P99Ms) || cal.P99Ms >= lead.P99Ms {
		t.Errorf("P99 %v ms under the calendar, %v under lead; the calendar's pods were ready for the second rise", cal.P99Ms, lead.P99Ms)
	}
}

// Before the run, the calendar reads the workload's past (a trace's earlier
// rows, 15 s each here) times the calls a request makes to the component,
// 2 here; in the run, the scrapes.
func TestTheLabsCalendarReadsTheWorkloadsPast(t *testing.T) {
	sc := calendarScenario(t, "normalization: calendar, calendarPeriod: 1m, calendarStep: 15s, calendarPeriods: \"1\"")
	rate := workload.Rate{Starts: []float64{0}, Values: []float64{50},
		Past: workload.Past{Values: []float64{10, 20, 30, 40, 50, 60}, Step: 15, Cycles: 1}}
	e, err := New(sc, sc.Runs[0], rate, onTheGrid(sc))
	if err != nil {
		t.Fatal(err)
	}
	settings := e.autoscaler.(*kedaHPA).triggers[e.comps[0]].spec
	got := e.calendarHistory(e.comps[0], settings, 2)
	want := []float64{40, 60, 80, 100, 120} // the past's rows ending at −60 … 0 s, twice over
	if len(got) != len(want) {
		t.Fatalf("history %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("history %v, want %v", got, want)
		}
	}
	e.now = 30 // one poll in, with no scrape taken: the newest two steps are not known
	if got := e.calendarHistory(e.comps[0], settings, 2); !math.IsNaN(got[4]) || !math.IsNaN(got[3]) || got[2] != 120 {
		t.Fatalf("at 30 s, history %v; want the past up to 0 s and NaN after", got)
	}
}

// artt-scaler ends the calendar's range at the poll truncated to the step on
// the wall clock. A load that starts 5 s past a step's boundary has its
// newest point at −5 s, holding 5 s of the row before the last and 10 s of
// the last: (50 × 5 + 60 × 10) ÷ 15 × 2 calls.
func TestTheLabsCalendarPointsFollowTheWallClock(t *testing.T) {
	sc := calendarScenario(t, "normalization: calendar, calendarPeriod: 1m, calendarStep: 15s, calendarPeriods: \"1\"")
	rate := workload.Rate{Starts: []float64{0}, Values: []float64{50},
		Past: workload.Past{Values: []float64{10, 20, 30, 40, 50, 60}, Step: 15, Cycles: 1}}
	opts := onTheGrid(sc)
	opts.Phases.Wall = 5
	e, err := New(sc, sc.Runs[0], rate, opts)
	if err != nil {
		t.Fatal(err)
	}
	settings := e.autoscaler.(*kedaHPA).triggers[e.comps[0]].spec
	got := e.calendarHistory(e.comps[0], settings, 2)
	if want := (50*5 + 60*10) / 15.0 * 2; math.Abs(got[len(got)-1]-want) > 1e-9 {
		t.Fatalf("history %v; want the newest point (−20 s, −5 s] at %v", got, want)
	}
}

// Prometheus' rate() needs two samples in its window: a calendar step of
// one scrape interval would read no history in a cluster, so the lab
// refuses it by name.
func TestTheLabRefusesACalendarStepOfOneScrape(t *testing.T) {
	sc := calendarScenario(t, "normalization: calendar, calendarPeriod: 1m, calendarStep: 5s")
	_, err := New(sc, sc.Runs[0], workload.Rate{Starts: []float64{0}, Values: []float64{50}}, onTheGrid(sc))
	if err == nil || !strings.Contains(err.Error(), "calendarStep 5s") {
		t.Fatalf("New = %v; want an error naming calendarStep 5s", err)
	}
}

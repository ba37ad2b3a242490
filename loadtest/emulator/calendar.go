package emulator

import (
	"fmt"
	"math"

	"github.com/artt-dev/artt/scaler/metric"
)

// calendarHistory is what the trigger's calendarQuery returns at the poll
// now: the offered rate over each calendar step, the newest ending at now
// truncated to the step on the wall clock, as artt-scaler truncates
// (scaler/prometheus.go). Inside the run a point is rate() over the step
// as Prometheus reads it from the pods' scrapes (scrapes.go); before the
// run it is the workload's past (a trace's earlier rows, as a TSDB
// backfilled from them holds) times the calls one request makes to the
// component; a point across the start weighs each by its share of the
// step. NaN where neither reaches.
func (e *Emulator) calendarHistory(c *component, s metric.Settings, visits float64) []float64 {
	step := s.Calendar.Step.Seconds()
	n := s.Calendar.Points()
	last := int64(math.Floor((e.phases.Wall + e.now) / step))
	out := make([]float64, n)
	for i := range out {
		index := last - int64(n-1-i)
		at := float64(index)*step - e.phases.Wall
		out[i] = e.offeredOver(c, s, index, at-step, at, visits)
	}
	return out
}

// offeredOver is the calendar's point (a, b], the index-th step of the wall
// clock: the past's mean rate over what lies before the start, the scrapes'
// rate over what lies after.
func (e *Emulator) offeredOver(c *component, s metric.Settings, index int64, a, b, visits float64) float64 {
	var past, run float64
	if a < 0 {
		mean, ok := e.rate.Past.Mean(a, math.Min(b, 0))
		if !ok {
			return math.NaN()
		}
		past = mean * visits * (math.Min(b, 0) - a)
	}
	if b > 0 {
		v := e.scrapes.at(pointKey{comp: c, step: b - a, index: index, rate: "rate", window: b - a})
		rate := v.demand
		if s.OfferedLoad {
			rate = v.arrivals
		}
		if math.IsNaN(rate) {
			return math.NaN()
		}
		run = rate * (b - math.Max(a, 0))
	}
	return (past + run) / (b - a)
}

// checkCalendarStep refuses a calendar step shorter than two of the lab's
// scrapes: calendarQuery's rate() over one step needs two samples, and a
// cluster's Prometheus would return no history at all.
func checkCalendarStep(s metric.Settings, scrape float64) error {
	if !s.UsesCalendar() {
		return nil
	}
	if step := s.Calendar.Step.Seconds(); step < 2*scrape {
		return fmt.Errorf("calendarStep %s must be at least two of the lab's scrape intervals (control.sampleInterval, %gs): "+
			"the rate() over each step needs two samples", s.Calendar.Step, scrape)
	}
	return nil
}

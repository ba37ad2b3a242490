package emulator

import (
	"fmt"
	"math"

	"github.com/artt-dev/artt/scaler/metric"
)

// calendarHistory is what the trigger's calendarQuery returns at the poll
// now: the offered rate's mean over each calendar step, the newest at now
// truncated to the step. Inside the run it is the mean of the sampled
// rates the step holds, as rate() over a window of whole scrapes reads;
// before the run it is the workload's past (a trace's earlier rows, as a
// TSDB backfilled from them holds) times the calls one request makes to
// the component; NaN where neither reaches.
func (e *Emulator) calendarHistory(c *component, s metric.Settings, visits float64) []float64 {
	dt := e.sc.Control.SampleInterval.Seconds()
	step := s.Calendar.Step.Seconds()
	offered := c.demand
	if s.OfferedLoad {
		offered = c.arrivals
	}
	n := s.Calendar.Points()
	end := math.Floor(e.now/step) * step
	out := make([]float64, n)
	for i := range out {
		at := end - float64(n-1-i)*step
		out[i] = e.offeredOver(offered, at-step, at, dt, visits)
	}
	return out
}

// offeredOver is the mean offered rate over (a, b], scrape by scrape: a
// scrape interval ending at or before the start from the workload's past,
// a later one from the run's samples.
func (e *Emulator) offeredOver(sampled []float64, a, b, dt, visits float64) float64 {
	var sum float64
	slots := int(math.Round((b - a) / dt))
	for m := range slots {
		end := b - float64(m)*dt
		if end <= 0 {
			past, ok := e.rate.Past.Mean(end-dt, end)
			if !ok {
				return math.NaN()
			}
			sum += past * visits
			continue
		}
		j := int(math.Round(end/dt)) - 1
		if j >= len(sampled) || !(sampled[j] >= 0) {
			return math.NaN()
		}
		sum += sampled[j]
	}
	return sum / float64(slots)
}

// checkCalendarStep refuses a calendar step the lab's scrapes do not
// divide: its Prometheus holds a sample per scrape interval only.
func checkCalendarStep(s metric.Settings, scrape float64) error {
	if !s.UsesCalendar() {
		return nil
	}
	step := s.Calendar.Step.Seconds()
	if k := math.Round(step / scrape); k < 1 || math.Abs(k*scrape-step) > 1e-9 {
		return fmt.Errorf("calendarStep %s must be a whole number of the lab's scrape interval (control.sampleInterval, %gs)", s.Calendar.Step, scrape)
	}
	return nil
}

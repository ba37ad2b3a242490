package metric

import (
	"fmt"
	"math"
	"time"

	"github.com/artt-dev/artt/threshold"
)

// CalendarSettings shape the history normalization "calendar" reads: the
// offered rate at one sample per Step over the last Periods periods.
type CalendarSettings struct {
	// Period is how often the demand recurs: a day, or a session.
	Period time.Duration
	// Periods is how many earlier periods the profile takes the median of.
	Periods int
	// Step is the history's resolution, and the rate window of each of its
	// samples (a rate(), the mean over the step).
	Step time.Duration
}

// Calendar defaults: a day's profile at a minute's resolution, the median
// of a week's days. A minute is Prometheus's default scrape interval, so
// every sample is a measured one; 7 days at a minute are 10,081 points, one
// range query under Prometheus's 11,000, and within its default retention
// of 15 days.
const (
	defaultCalendarPeriod  = 24 * time.Hour
	defaultCalendarPeriods = 7
	defaultCalendarStep    = time.Minute
)

// Points is how many samples the history holds: Periods periods and now,
// so the profile at now finds every one of them.
func (c CalendarSettings) Points() int {
	return c.Periods*int(c.Period/c.Step) + 1
}

// Forecaster is the threshold's Calendar for these settings: the lead in
// history samples, rounded up, and the threshold's quantile and warm-up.
func (s Settings) Forecaster() threshold.Calendar {
	c := s.Calendar
	return threshold.Calendar{
		Period:   int(c.Period / c.Step),
		Periods:  c.Periods,
		Lead:     max(1, int(math.Ceil(float64(s.LeadTime)/float64(c.Step)))),
		Quantile: s.Threshold.Quantile,
		WarmUp:   s.Threshold.WarmUp,
	}
}

// UsesCalendar reports whether the threshold reads the calendar's history.
func (s Settings) UsesCalendar() bool {
	return s.Threshold.Normalization == threshold.NormalizationCalendar
}

// calendar reads the calendar's keys; checkCalendar checks them once the
// lead time is known.
func (r *Reader) calendar() CalendarSettings {
	return CalendarSettings{
		Period:  r.Duration("calendarPeriod", defaultCalendarPeriod, time.Minute, 31*24*time.Hour),
		Periods: r.Int("calendarPeriods", defaultCalendarPeriods, 1, MaxPoints),
		Step:    r.Duration("calendarStep", defaultCalendarStep, time.Second, 24*time.Hour),
	}
}

func (r *Reader) checkCalendar(s Settings) {
	c := s.Calendar
	if c.Step <= 0 || c.Period <= 0 || c.Periods < 1 {
		return // a key already refused
	}
	if c.Period%c.Step != 0 || c.Period < 2*c.Step {
		r.Fail("calendarPeriod", fmt.Sprintf("must be a whole number of calendarStep (%s), at least two", c.Step))
		return
	}
	if p := c.Points(); p > MaxPoints {
		r.Fail("calendarPeriods", fmt.Sprintf("calendarPeriods × calendarPeriod ÷ calendarStep + 1 = %d exceeds the %d points Prometheus returns per range query", p, MaxPoints))
		return
	}
	if s.UsesCalendar() {
		if err := s.Forecaster().Validate(); err != nil {
			r.Fail("leadTime", fmt.Sprintf("must be shorter than calendarPeriod (%s) for the calendar to look ahead within a period", c.Period))
		}
	}
}

// calendarThreshold replaces the window's threshold with the calendar's
// when the history holds an earlier period; y is the offered rate now.
func calendarThreshold(s Settings, res threshold.Result, history []float64, y float64) threshold.Result {
	if !s.UsesCalendar() || len(history) == 0 {
		return res
	}
	f, ok := s.Forecaster().Forecast(history, y)
	if !ok {
		return res
	}
	return s.Threshold.CalendarThreshold(res, y, f)
}

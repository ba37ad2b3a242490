package metric

import (
	"errors"
	"math"
	"testing"
)

// Steady demand of 10 requests per second at 10 ms each on a request of 0.5
// cores: 20% utilisation, and the window sees nothing coming, so lead's
// threshold rests at 80 and the metric is 100 × 20 ÷ 80 = 25. A calendar of
// one earlier period (four 15 s samples) rose to 40 one sample after this
// phase: the forecast peak is 10 + 30 = 40, no earlier forecast is scored,
// so θ = 100 × 10 ÷ 40 = 25 and the metric 80, below MinThreshold's 50.
func TestTheCalendarRaisesTheMetricBeforeTheRiseItRemembers(t *testing.T) {
	settings, err := ParseSettings(map[string]string{"window": "5", "history": "1", "step": "15s",
		"normalization": "calendar", "calendarPeriod": "1m", "calendarStep": "15s", "calendarPeriods": "1", "leadTime": "15s"})
	if err != nil {
		t.Fatal(err)
	}
	steady := []float64{10, 10, 10, 10, 10}
	m := Measurements{Demand: steady, Arrivals: steady, CPU: []float64{0.1, 0.1, 0.1, 0.1, 0.1}, CPURequest: 0.5}
	for _, tc := range []struct {
		name     string
		calendar []float64
		theta    float64
		periods  int
	}{
		{"no history: lead's threshold", nil, 80, 0},
		{"less than a period of history: lead's threshold", []float64{10, 40, 10}, 80, 0},
		{"a period back the demand rose by 30 a sample later", []float64{10, 40, 10, 10, 10}, 25, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m.Calendar = tc.calendar
			ev, err := Evaluate(settings, m)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(ev.Threshold.Threshold-tc.theta) > 1e-9 || ev.Threshold.CalendarPeriods != tc.periods {
				t.Fatalf("θ %v from %d periods; want %v from %d", ev.Threshold.Threshold, ev.Threshold.CalendarPeriods, tc.theta, tc.periods)
			}
			if want := 100 * 20 / tc.theta; math.Abs(ev.MetricValue(FormNormalized)-want) > 1e-9 {
				t.Fatalf("metric %v, want %v", ev.MetricValue(FormNormalized), want)
			}
		})
	}
}

func TestCalendarKeysAreCheckedTogether(t *testing.T) {
	for _, tc := range []struct {
		name string
		md   map[string]string
		key  string
	}{
		{"a period that is not a whole number of steps", map[string]string{"calendarPeriod": "90s", "calendarStep": "1m"}, "calendarPeriod"},
		{"a week at a second is past a range query's points", map[string]string{"calendarPeriod": "24h", "calendarStep": "1s"}, "calendarPeriods"},
		{"a lead as long as the period", map[string]string{"normalization": "calendar", "calendarPeriod": "10m", "leadTime": "10m"}, "leadTime"},
		{"a period shorter than a minute", map[string]string{"calendarPeriod": "30s", "calendarStep": "1s"}, "calendarPeriod"},
		{"no periods", map[string]string{"calendarPeriods": "0"}, "calendarPeriods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSettings(tc.md)
			var me *MetadataError
			if !errors.As(err, &me) || me.Key != tc.key {
				t.Fatalf("error %v; want one on %s", err, tc.key)
			}
		})
	}
	s, err := ParseSettings(map[string]string{"normalization": "calendar"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Calendar.Points(); got != 7*1440+1 {
		t.Errorf("the default calendar reads %d points, want a week of minutes and now, %d", got, 7*1440+1)
	}
	if f := s.Forecaster(); f.Period != 1440 || f.Lead != 1 || f.Periods != 7 {
		t.Errorf("default forecaster %+v, want a period of 1440 samples, a lead of 1 and 7 periods", f)
	}
}

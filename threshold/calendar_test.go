package threshold

import (
	"errors"
	"math"
	"testing"
)

// Every figure below is worked by hand from Calendar's definition: the
// profile is the median of the samples whole periods back, the forecast is
// y plus the profile's highest rise within the lead, and each error is the
// highest demand that came within the lead less the forecast made then.
func TestCalendarForecastsFromEarlierPeriods(t *testing.T) {
	nan := math.NaN()
	cal := Calendar{Period: 4, Periods: 2, Lead: 1, Quantile: 0.975, WarmUp: 5}
	for _, tc := range []struct {
		name    string
		cal     Calendar
		history []float64
		y       float64
		want    CalendarForecast
		ok      bool
	}{
		{"the calendar says the next sample rises by 30: the peak is y + 30; every earlier forecast was exact",
			cal, []float64{10, 10, 40, 10, 10, 10, 40, 10, 10, 10}, 12,
			CalendarForecast{Peak: 42, Headroom: 0, Periods: 2, Errors: 5}, true},
		{"the peak grew from 40 to 60: the profile is their median, 50, and the miss of 20 at the second rise is the headroom",
			cal, []float64{10, 10, 40, 10, 10, 10, 60, 10, 10, 10}, 10,
			CalendarForecast{Peak: 50, Headroom: 20, Periods: 2, Errors: 5}, true},
		{"one period's spike is outvoted in the profile by the two others, and kept in the headroom as the miss of 80 it was",
			Calendar{Period: 4, Periods: 3, Lead: 1, Quantile: 0.975, WarmUp: 5},
			[]float64{10, 10, 10, 10, 10, 10, 90, 10, 10, 10, 10, 10, 10, 10}, 10,
			CalendarForecast{Peak: 10, Headroom: 80, Periods: 3, Errors: 9}, true},
		{"a lead of two takes the higher of the two samples ahead; fewer errors than WarmUp give no headroom",
			Calendar{Period: 4, Periods: 1, Lead: 2, Quantile: 0.975, WarmUp: 5},
			[]float64{10, 10, 20, 50, 10, 10, 20}, 15,
			CalendarForecast{Peak: 45, Headroom: 0, Periods: 1, Errors: 1}, true},
		{"a missing sample a period back leaves the other period's; no error is scored on or against it",
			cal, []float64{10, 10, 40, 10, 10, nan, 40, 10, 10, 10}, 10,
			CalendarForecast{Peak: 40, Headroom: 0, Periods: 1, Errors: 3}, true},
		{"less than a period of history: no calendar yet",
			cal, []float64{10, 10, 40}, 10, CalendarForecast{}, false},
		{"no demand now: nothing to scale a forecast from",
			cal, []float64{10, 10, 40, 10, 10, 10, 40, 10, 10, 10}, 0, CalendarForecast{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.cal.Forecast(tc.history, tc.y)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("Forecast = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestCalendarThresholdKeepsTheForecastUnderTheCeiling(t *testing.T) {
	cfg := DefaultConfig()
	for _, tc := range []struct {
		name string
		y    float64
		f    CalendarForecast
		want float64
	}{
		{"a rise of 40 with 20 of headroom over 10 now: 100 × 10 ÷ 70", 10, CalendarForecast{Peak: 50, Headroom: 20, Periods: 2}, 100 * 10 / 70.0},
		{"a forecast fall rests at MaxThreshold", 10, CalendarForecast{Peak: 5, Periods: 1}, cfg.MaxThreshold},
		{"below MinThreshold: a sevenfold open asks for sevenfold pods", 40, CalendarForecast{Peak: 280, Periods: 1}, 100 * 40 / 280.0},
		{"a thousandfold rise stops at CalendarFloor", 1, CalendarForecast{Peak: 1000, Periods: 1}, CalendarFloor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cfg.CalendarThreshold(Result{Threshold: 66}, tc.y, tc.f)
			if math.Abs(r.Threshold-tc.want) > 1e-9 || r.CalendarPeriods != tc.f.Periods {
				t.Fatalf("θ = %v (periods %d); want %v (%d)", r.Threshold, r.CalendarPeriods, tc.want, tc.f.Periods)
			}
		})
	}
}

func TestCalendarValidateNamesTheField(t *testing.T) {
	good := Calendar{Period: 96, Periods: 7, Lead: 2, Quantile: 0.975, WarmUp: 5}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for field, c := range map[string]Calendar{
		"Period":   {Period: 1, Periods: 7, Lead: 1, Quantile: 0.975, WarmUp: 5},
		"Periods":  {Period: 96, Periods: 0, Lead: 1, Quantile: 0.975, WarmUp: 5},
		"Lead":     {Period: 96, Periods: 7, Lead: 96, Quantile: 0.975, WarmUp: 5},
		"Quantile": {Period: 96, Periods: 7, Lead: 1, Quantile: 1, WarmUp: 5},
		"WarmUp":   {Period: 96, Periods: 7, Lead: 1, Quantile: 0.975, WarmUp: 1},
	} {
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("Validate(%+v) = %v; want a FieldError on %s", c, err, field)
		}
	}
}

// FuzzCalendar: any history and settings Validate accepts give a forecast
// whose peak and headroom are finite, or none, and never a panic.
func FuzzCalendar(f *testing.F) {
	f.Add(4, 2, 1, []byte{10, 10, 40, 10, 10, 10, 40, 10, 10, 10}, 12.0)
	f.Add(2, 7, 1, []byte{0, 255, 0}, 0.5)
	f.Fuzz(func(t *testing.T, period, periods, lead int, raw []byte, y float64) {
		c := Calendar{Period: period, Periods: periods, Lead: lead, Quantile: 0.975, WarmUp: 5}
		if c.Validate() != nil || period > 1000 || periods > 50 {
			return
		}
		history := make([]float64, len(raw))
		for i, b := range raw {
			history[i] = float64(b)
			if b == 255 {
				history[i] = math.NaN()
			}
		}
		f, ok := c.Forecast(history, y)
		if ok && (!isFinite(f.Peak) || !isFinite(f.Headroom) || f.Headroom < 0 || f.Periods < 1) {
			t.Fatalf("Forecast(%v, %v) = %+v", history, y, f)
		}
		if ok {
			if r := DefaultConfig().CalendarThreshold(Result{}, y, f); !(r.Threshold >= CalendarFloor && r.Threshold <= DefaultConfig().MaxThreshold) {
				t.Fatalf("θ %v outside [%v, max] for %+v", r.Threshold, CalendarFloor, f)
			}
		}
	})
}

package threshold

import (
	"fmt"
	"math"
	"slices"

	"github.com/artt-dev/artt/internal/stats"
)

// Calendar forecasts demand that recurs with a known period (a trading
// session, a day) from the same phase of earlier periods. Its input is a
// history of demand at one sample per step, oldest first, ending now, NaN
// where missing: what a range query over the last Periods periods returns.
//
// The profile at a sample is the median of the samples one, two, …
// Periods periods before it: a median, so one unusual day (an incident, a
// holiday) among them moves it by nothing. The forecast is of the highest
// demand within the next Lead samples, the time pods asked for now take to
// serve: the demand now plus the profile's rise from now to its highest
// point within the lead,
//
//	ŷ = y_now + max over 1 ≤ h ≤ Lead of (profile(now + h) − profile(now)),
//
// additive, so the level a busier or quieter period runs at carries over
// and a profile near zero divides nothing. Its headroom is its own error:
// the same forecast made at every earlier sample whose profile and lead are
// in the history, against the highest demand that then came within the
// lead; the Quantile-th quantile of those misses (under-forecasts
// positive), at least 0, once WarmUp are known.
type Calendar struct {
	// Period is the demand's period in samples (at least 2).
	Period int
	// Periods is the most earlier periods the profile takes the median of.
	Periods int
	// Lead is how many samples ahead the forecast looks (at least 1, less
	// than Period).
	Lead int
	// Quantile is the quantile of the errors kept as headroom, in (0.5, 1).
	Quantile float64
	// WarmUp is how many errors must be known before they give headroom.
	WarmUp int
}

// CalendarForecast is one forecast and what it rests on.
type CalendarForecast struct {
	// Peak is the forecast of the highest demand within the lead.
	Peak float64
	// Headroom is the Quantile-th quantile of the forecast's own errors.
	Headroom float64
	// Periods is how many earlier periods the profile at now found.
	Periods int
	// Errors is how many earlier forecasts were scored.
	Errors int
}

// Validate reports the first invalid field as a *FieldError.
func (c Calendar) Validate() error {
	switch {
	case c.Period < 2:
		return &FieldError{Field: "Period", Value: c.Period, Reason: "must be at least 2 samples"}
	case c.Periods < 1:
		return &FieldError{Field: "Periods", Value: c.Periods, Reason: "must be at least 1"}
	case c.Lead < 1 || c.Lead >= c.Period:
		return &FieldError{Field: "Lead", Value: c.Lead, Reason: fmt.Sprintf("must be at least 1 sample and less than the period (%d)", c.Period)}
	case !(c.Quantile > 0.5 && c.Quantile < 1):
		return &FieldError{Field: "Quantile", Value: c.Quantile, Reason: "must be in (0.5, 1)"}
	case c.WarmUp < 2:
		return &FieldError{Field: "WarmUp", Value: c.WarmUp, Reason: "must be at least 2"}
	}
	return nil
}

// Forecast forecasts the highest demand within the lead after the newest
// sample of history, from y now. ok is false when history holds no earlier
// period at now and at every sample of the lead, or y is not finite and
// positive: there is no calendar to read yet.
func (c Calendar) Forecast(history []float64, y float64) (f CalendarForecast, ok bool) {
	n := len(history) - 1
	if !(y > 0) || math.IsInf(y, 0) || n < 0 {
		return CalendarForecast{}, false
	}
	scratch := make([]float64, 0, c.Periods)
	rise, periods, ok := c.rise(history, n, scratch)
	if !ok {
		return CalendarForecast{}, false
	}
	errs := c.errors(history, scratch)
	f = CalendarForecast{Peak: y + rise, Periods: periods, Errors: len(errs)}
	if len(errs) >= c.WarmUp {
		slices.Sort(errs)
		f.Headroom = math.Max(stats.Quantile(errs, c.Quantile), 0)
	}
	return f, true
}

// rise is the profile's highest rise within the lead after sample i, and
// how many periods its profile at i found; ok is false when the profile is
// unknown at i or at every sample of the lead.
func (c Calendar) rise(history []float64, i int, scratch []float64) (rise float64, periods int, ok bool) {
	base, periods := c.profile(history, i, scratch)
	if periods == 0 {
		return 0, 0, false
	}
	rise = math.Inf(-1)
	for h := 1; h <= c.Lead; h++ {
		if p, found := c.profile(history, i+h, scratch); found > 0 {
			rise = math.Max(rise, p-base)
		}
	}
	return rise, periods, !math.IsInf(rise, -1)
}

// profile is the median of the finite samples one to Periods periods
// before sample i (which may lie past the history's end), and how many
// there were.
func (c Calendar) profile(history []float64, i int, scratch []float64) (float64, int) {
	at := scratch[:0]
	for j := 1; j <= c.Periods; j++ {
		k := i - j*c.Period
		if k < 0 {
			break
		}
		if k < len(history) && isFinite(history[k]) {
			at = append(at, history[k])
		}
	}
	if len(at) == 0 {
		return math.NaN(), 0
	}
	return stats.MedianInPlace(at), len(at)
}

// errors are the misses of the forecast made at every sample whose lead
// lies within the history: the highest demand that came within the lead,
// less the forecast from that sample.
func (c Calendar) errors(history []float64, scratch []float64) []float64 {
	var errs []float64
	for i := c.Period; i+c.Lead < len(history); i++ {
		if !isFinite(history[i]) {
			continue
		}
		rise, _, ok := c.rise(history, i, scratch)
		if !ok {
			continue
		}
		came := math.Inf(-1)
		for h := 1; h <= c.Lead; h++ {
			if isFinite(history[i+h]) {
				came = math.Max(came, history[i+h])
			}
		}
		if !math.IsInf(came, -1) {
			errs = append(errs, came-(history[i]+rise))
		}
	}
	return errs
}

// CalendarThreshold is the threshold that keeps the forecast peak plus its
// headroom under Ceiling when the pods asked for now serve:
//
//	θ = Ceiling × y ÷ (ŷ + e_q), at most MaxThreshold and at least CalendarFloor.
//
// It replaces r's threshold and reports the forecast's rise and headroom,
// relative to y, as NormalizedTrend and NormalizedVolatility. The window's
// bound MinThreshold does not apply: it bounds the headroom a window's
// noise and climb can buy, while a calendar forecasts a level, and the HPA
// then asks for the pods that level needs, ceil(cost × (ŷ + e_q) ÷
// (Ceiling × request)), whatever y is. A floor at MinThreshold would cap a
// forecast rise at MaxThreshold ÷ MinThreshold (1.6 at the defaults), where
// a session's open is several-fold.
func (cfg Config) CalendarThreshold(r Result, y float64, f CalendarForecast) Result {
	r.NormalizedTrend = f.Peak/y - 1
	r.NormalizedVolatility = f.Headroom / y
	r.Threshold = cfg.MaxThreshold // a forecast falling to nothing needs no headroom
	if peak := f.Peak + f.Headroom; peak > 0 {
		r.Threshold = clamp(cfg.Ceiling*y/peak, CalendarFloor, cfg.MaxThreshold)
	}
	r.CalendarPeriods = f.Periods
	return r
}

// CalendarFloor is the lowest threshold a calendar forecast sets, in
// percent of the CPU request: it asks for at most Ceiling ÷ CalendarFloor
// (100) times the pods the demand now needs at the ceiling. It matters
// only where demand is near zero, and there idle CPU over few requests
// overstates the cost per request, which a forecast would multiply.
const CalendarFloor = 1.0

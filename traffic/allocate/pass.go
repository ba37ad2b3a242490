package allocate

import (
	"time"

	"github.com/artt-dev/artt/traffic"
)

// purpose is what a call is for: a cycle rebalances, the fast path only
// protects.
type purpose int

const (
	rebalancing purpose = iota
	protecting
)

// pass is what one call does with its snapshot's measurements.
type pass struct {
	purpose purpose
	// learnForecasts is true on a cycle whose measurements the forecasts
	// have not learned from yet; learnHealth when the health trackers have
	// not. Each learns from a measurement once, whichever call sees it.
	learnForecasts, learnHealth bool
}

// passFor says what a call for purpose does with s, and marks its
// measurements learned.
func (a *ARTT) passFor(s traffic.Snapshot, purpose purpose) pass {
	isNew := func(last time.Time) bool { return s.MeasuredAt.IsZero() || !s.MeasuredAt.Equal(last) }
	p := pass{purpose: purpose, learnForecasts: purpose == rebalancing && isNew(a.forecastMeasured), learnHealth: isNew(a.healthMeasured)}
	if purpose == rebalancing {
		a.forecastMeasured = s.MeasuredAt
	}
	a.healthMeasured = s.MeasuredAt
	return p
}

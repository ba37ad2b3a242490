package emulator

import (
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
)

func detector(consecutive int, maxPercent float64) *outlierDetector {
	return newOutlierDetector(&scenario.OutlierDetection{
		Consecutive5xxErrors: &consecutive,
		Interval:             scenario.Duration{Duration: 10 * time.Second},
		BaseEjectionTime:     scenario.Duration{Duration: 30 * time.Second},
		MaxEjectionPercent:   maxPercent,
	})
}

func TestOutlierEjectsAfterConsecutiveErrors(t *testing.T) {
	o := detector(5, 100)
	p := &replica{id: 2, state: ready}
	for i := range 4 {
		o.observe(p, true, float64(i), 4)
	}
	o.observe(p, false, 4, 4) // a success resets the streak
	for i := range 4 {
		o.observe(p, true, 5+float64(i), 4)
	}
	if o.isEjected(p) {
		t.Fatal("ejected after a broken streak of 4 + 4 errors; want 5 in a row")
	}
	o.observe(p, true, 9, 4)
	if !o.isEjected(p) {
		t.Fatal("not ejected after 5 consecutive errors")
	}
	// Ejected at 9 s for 30 s: out until 39 s, back at the first sweep
	// after that (40 s).
	o.sweep(39.5)
	if !o.isEjected(p) {
		t.Error("returned before the sweep after its ejection time")
	}
	o.sweep(40)
	if o.isEjected(p) {
		t.Error("still ejected at the sweep after its ejection time")
	}
	// The second ejection lasts twice as long.
	for i := range 5 {
		o.observe(p, true, 50+float64(i), 4)
	}
	o.sweep(100)
	if !o.isEjected(p) {
		t.Error("second ejection (60 s from 54 s) ended at 100 s")
	}
	o.sweep(120)
	if o.isEjected(p) {
		t.Error("second ejection still on at 120 s")
	}
}

func TestOutlierRespectsMaxEjectionPercent(t *testing.T) {
	// Envoy's default 10% ejects nothing from a cluster of fewer than 10
	// hosts (always_eject_one_host is off).
	o := detector(1, 10)
	p := &replica{id: 0, state: ready}
	o.observe(p, true, 0, 5)
	if o.isEjected(p) {
		t.Error("ejected one of 5 hosts at maxEjectionPercent 10")
	}
	// At 50%, two of four hosts may be out, not three.
	o = detector(1, 50)
	for id := range 3 {
		o.observe(&replica{id: id, state: ready}, true, 0, 4)
	}
	if len(o.out) != 2 {
		t.Errorf("%d of 4 hosts ejected at 50%%; want 2", len(o.out))
	}
}

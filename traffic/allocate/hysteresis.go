package allocate

import (
	"fmt"
	"math"
)

// The table-or-Envoy verdict in force changes only when the evidence
// against it clears the evidence's own noise. Without that, a component
// whose prices are near level flips every few cycles, each flip moving
// all its traffic at once and pushing new config to every calling sidecar,
// for a gain that is within the measurement's scatter.
//
// The evidence is the margin D = savingMs − queueingMs (positive favours
// the table). Its cycle-to-cycle scatter is tracked as TCP tracks a round
// trip's (RFC 6298): a smoothed mean with gain 1/8, and a mean deviation
// from it with gain 1/4, the first sample starting them at D and |D|/2.
// The verdict flips when D has the other sign by more than twice that
// deviation. For normal scatter the mean deviation is 0.8σ, so twice it
// is 1.6σ: a zero margin flips the verdict one cycle in twenty.

const (
	marginGain     = 1.0 / 8
	deviationGain  = 1.0 / 4
	flipDeviations = 2
)

// handoverMemory is one component's verdict in force, its margin's
// scatter, and the informed fraction of least-request's picks last seen
// in the component's own split.
type handoverMemory struct {
	known     bool
	envoy     bool
	mean, dev float64
	// cycles counts the measurements learned since the verdict in force
	// last changed.
	cycles int
	// informed is NaN until a split under Envoy was measured.
	informed float64
}

// newHandoverMemory returns a memory with no verdict yet.
func newHandoverMemory() *handoverMemory { return &handoverMemory{informed: math.NaN()} }

// observe records the informed fraction the component's measured split
// shows (observedInformed), once per new measurement. A split measures
// Envoy only when Envoy has had the component since before the last
// measurement: the one right after a handover still holds the table's
// traffic, where the measurement window reaches back before it.
func (m *handoverMemory) observe(informed float64, learn bool) {
	if learn && m.envoy && m.cycles >= 2 && !math.IsNaN(informed) {
		m.informed = informed
	}
}

// settle turns the prices' verdict into the one in force. learn folds the
// margin into the scatter; pass it once per new measurement. A verdict
// kept without pricing (h.why) is the table, in force from now on.
func (m *handoverMemory) settle(h handover, learn bool) handover {
	if h.why != "" {
		if m.envoy {
			m.envoy, m.cycles = false, 0
		}
		return h
	}
	d := h.savingMs - h.queueingMs
	if !m.known {
		m.known, m.envoy = true, h.envoy
		if !math.IsInf(d, 0) {
			m.mean, m.dev = d, math.Abs(d)/2
		}
		return h
	}
	band := flipDeviations * m.dev
	switch {
	case m.envoy && d > band, !m.envoy && d < -band:
		m.envoy, m.cycles = h.envoy, 0
	case m.envoy != h.envoy:
		h.held = fmt.Sprintf("verdict held: a margin of %.2f ms is within twice its cycle-to-cycle deviation, %.2f ms", d, band)
		h.envoy = m.envoy
	}
	if learn {
		m.cycles++
	}
	if learn && !math.IsInf(d, 0) {
		m.dev += deviationGain * (math.Abs(d-m.mean) - m.dev)
		m.mean += marginGain * (d - m.mean)
	}
	return h
}

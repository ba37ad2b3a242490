package allocate

import (
	"fmt"
	"math"
)

// The table-or-Envoy verdict in force changes only when the other choice
// wins by more than the prices' own error. Without that, a component whose
// prices are near level flips every few cycles, each flip moving all its
// traffic at once and pushing new config to every calling sidecar, for a
// gain smaller than the error of the estimate that decided it.
//
// The margin is D = savingMs − queueingMs (positive favours the table).
// The verdict in force flips when D has the other sign by more than
// flipBand of what is at stake, |savingMs| + |queueingMs|. The band is the
// prices' error from one measurement: a pod serving a thousand requests in
// a scrape has its rate, and so its utilisation, known to about 3%
// (Poisson, 1/√1000), and a mean response time at utilisation ρ moves by
// 1/(1 − ρ) times that, three times at 70%: about a tenth. The band is
// relative, so a change of load that moves the prices by far more than
// their error flips the verdict at once, at any scale.
const flipBand = 0.1

// handoverMemory is one component's verdict in force and the informed
// fraction of least-request's picks last seen in the component's own
// split.
type handoverMemory struct {
	known bool
	envoy bool
	// cycles counts the measurements since the verdict in force last
	// changed, not counting the one that changed it.
	cycles int
	// informed is NaN until a split under Envoy was measured.
	informed float64
}

// newHandoverMemory returns a memory with no verdict yet.
func newHandoverMemory() *handoverMemory { return &handoverMemory{informed: math.NaN()} }

// observe records the informed fraction the component's measured split
// shows (observedInformed); call it once per new measurement, before
// settle. A split measures Envoy only from the second measurement after
// the handover: the first one's window (a minute of rates, two cycles)
// still reaches back into the table's traffic.
func (m *handoverMemory) observe(informed float64, learn bool) {
	if learn && m.envoy && m.cycles >= 1 && !math.IsNaN(informed) {
		m.informed = informed
	}
}

// settle turns the prices' verdict into the one in force. learn counts a
// new measurement; pass it once per measurement. A verdict kept without
// pricing (h.why) is the table, in force from now on.
func (m *handoverMemory) settle(h handover, learn bool) handover {
	if learn {
		m.cycles++
	}
	if h.why != "" {
		if m.envoy {
			m.envoy, m.cycles = false, 0
		}
		return h
	}
	if !m.known {
		m.known, m.envoy, m.cycles = true, h.envoy, 0
		return h
	}
	d := h.savingMs - h.queueingMs
	band := flipBand * (math.Abs(h.savingMs) + math.Abs(h.queueingMs))
	switch {
	case m.envoy && d > band, !m.envoy && d < -band, math.IsInf(d, 0):
		if m.envoy != h.envoy {
			m.envoy, m.cycles = h.envoy, 0
		}
	case m.envoy != h.envoy:
		h.held = fmt.Sprintf("verdict held: a margin of %.2f ms is within a tenth of the %.2f ms at stake", d, math.Abs(h.savingMs)+math.Abs(h.queueingMs))
		h.envoy = m.envoy
	}
	return h
}

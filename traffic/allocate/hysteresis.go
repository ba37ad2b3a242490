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

// handoverMemory is one component's verdict in force.
type handoverMemory struct {
	known, envoy bool
}

// settle turns the prices' verdict into the one in force. A verdict kept
// without pricing (h.why) is the table, in force from now on.
func (m *handoverMemory) settle(h handover) handover {
	if h.why != "" {
		m.envoy = false
		return h
	}
	if !m.known {
		m.known, m.envoy = true, h.envoy
		return h
	}
	d := h.savingMs - h.queueingMs
	band := flipBand * (math.Abs(h.savingMs) + math.Abs(h.queueingMs))
	switch {
	case m.envoy && d > band, !m.envoy && d < -band, math.IsInf(d, 0):
		m.envoy = h.envoy
	case m.envoy != h.envoy:
		h.held = fmt.Sprintf("verdict held: a margin of %.2f ms is within a tenth of the %.2f ms at stake", d, math.Abs(h.savingMs)+math.Abs(h.queueingMs))
		h.envoy = m.envoy
	}
	return h
}

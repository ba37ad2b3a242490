package allocate

import (
	"math"
	"strings"
	"testing"
)

// verdictOf is the prices' verdict for a margin of saving − queueing ms.
func verdictOf(savingMs, queueingMs float64) handover {
	return handover{envoy: savingMs <= queueingMs, savingMs: savingMs, queueingMs: queueingMs}
}

// Margins that scatter around zero keep the first verdict; a margin that
// clears twice the deviation flips it, and so does saturation at once.
func TestHandoverVerdictHoldsWithinItsScatter(t *testing.T) {
	m := newHandoverMemory()
	if h := m.settle(verdictOf(1.0, 0.6), true); h.envoy {
		t.Fatal("first verdict (saving 1.0 > queueing 0.6) should be the table")
	}
	// D alternates ±0.2 around 0: the mean deviation settles near 0.2
	// and the band near 0.4, so none of these flips the table.
	for i := range 20 {
		q := 0.8
		if i%2 == 1 {
			q = 1.2
		}
		h := m.settle(verdictOf(1.0, q), true)
		if h.envoy {
			t.Fatalf("cycle %d: margin %.1f flipped the verdict (band %.3f)", i, 1.0-q, flipDeviations*m.dev)
		}
		if q > 1 && !strings.Contains(h.note(), "verdict held") {
			t.Errorf("cycle %d: note %q does not say the verdict was held", i, h.note())
		}
	}
	if m.dev < 0.1 || m.dev > 0.4 {
		t.Errorf("mean deviation %.3f after ±0.2 ms scatter, want about 0.2", m.dev)
	}
	// A margin of −1 ms is well past the band: Envoy takes over.
	if h := m.settle(verdictOf(1.0, 2.0), true); !h.envoy || h.held != "" {
		t.Errorf("margin −1 ms: envoy %v, held %q; want Envoy on the prices", h.envoy, h.held)
	}
	// Back to a slightly positive margin: within the band, Envoy stays.
	if h := m.settle(verdictOf(1.0, 0.9), true); !h.envoy {
		t.Error("margin +0.1 ms right after the flip: want Envoy held")
	}
	// A table that spares an overloaded blind split flips at once.
	if h := m.settle(verdictOf(1.0, math.Inf(-1)), true); h.envoy {
		t.Error("infinite margin for the table: want the table")
	}
	if math.IsInf(m.mean, 0) || math.IsInf(m.dev, 0) {
		t.Errorf("an infinite margin entered the scatter: mean %v, dev %v", m.mean, m.dev)
	}
}

// A table kept without pricing is the verdict in force: a later priced
// margin inside the band keeps it.
func TestHandoverVerdictForcedTableIsInForce(t *testing.T) {
	m := newHandoverMemory()
	m.settle(verdictOf(0.2, 1.0), true) // Envoy, band 0.8
	m.settle(handover{why: "a group is Degraded: only a table can cut it"}, true)
	if h := m.settle(verdictOf(0.5, 0.6), true); h.envoy {
		t.Error("margin −0.1 ms after a forced table: want the table held")
	}
}

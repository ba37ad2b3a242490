package allocate

import (
	"math"
	"strings"
	"testing"
)

// verdictOf is the prices' verdict for a saving and a queueing in ms.
func verdictOf(savingMs, queueingMs float64) handover {
	return handover{envoy: savingMs <= queueingMs, savingMs: savingMs, queueingMs: queueingMs}
}

// Margins inside a tenth of the stake keep the verdict in force, either
// way; one past it flips the verdict at once, at any scale.
func TestHandoverVerdictHoldsInsideItsBand(t *testing.T) {
	m := new(handoverMemory)
	if h := m.settle(verdictOf(1.0, 0.6)); h.envoy {
		t.Fatal("first verdict (saving 1.0 > queueing 0.6) should be the table")
	}
	// Queueing 1.15 against a saving of 1.0: a margin of −0.15 ms, inside
	// 0.1 × 2.15 ms. The table stays, and says so.
	h := m.settle(verdictOf(1.0, 1.15))
	if h.envoy || !strings.Contains(h.note(), "verdict held") {
		t.Errorf("margin −0.15 of 2.15 ms: envoy %v, note %q; want the table held", h.envoy, h.note())
	}
	// Queueing 1.3: −0.3 ms, past 0.23 ms. Envoy takes over.
	if h := m.settle(verdictOf(1.0, 1.3)); !h.envoy || h.held != "" {
		t.Errorf("margin −0.3 of 2.3 ms: envoy %v, held %q; want Envoy on the prices", h.envoy, h.held)
	}
	// Back to +0.15 of 1.85 ms: inside the band, Envoy stays.
	if h := m.settle(verdictOf(1.0, 0.85)); !h.envoy {
		t.Error("margin +0.15 of 1.85 ms right after the flip: want Envoy held")
	}
	// A load step that makes the table save 30 ms flips it back at once.
	if h := m.settle(verdictOf(1.0, -30)); h.envoy {
		t.Error("the table saves 31 ms: want the table")
	}
	// Saturation flips at once whatever the band.
	if h := m.settle(verdictOf(1.0, math.Inf(1))); !h.envoy {
		t.Error("saturated: want Envoy")
	}
}

// A table kept without pricing is the verdict in force: a later priced
// margin inside the band keeps it.
func TestHandoverVerdictForcedTableIsInForce(t *testing.T) {
	m := new(handoverMemory)
	m.settle(verdictOf(0.2, 1.0)) // Envoy
	m.settle(handover{why: "a group is Degraded: only a table can cut it"})
	if h := m.settle(verdictOf(0.5, 0.55)); h.envoy {
		t.Error("margin −0.05 of 1.05 ms after a forced table: want the table held")
	}
}

package traffic

import (
	"fmt"
	"math"

	"github.com/artt-dev/artt/graph"
)

// delayTable holds the measured node-to-node delays by node number, in a
// dense matrix read in a nanosecond, or, for a large cluster that measures
// few of its pairs, a map, so memory stays proportional to what was
// measured.
type delayTable struct {
	ids    map[string]int32
	n      int
	dense  []float64 // n×n, NaN where unmeasured; nil when sparse
	sparse map[uint64]float64
}

// denseDelayCells is the largest matrix (node pairs) a delay table is
// dense at however few pairs were measured: 8 MiB, up to 1,024 nodes. A
// fleet that probes a sample of its pairs (within each zone, and to one
// node of each other zone) reads every component's delays each cycle, and
// through the map that took a tenth of a second of a 500-node cycle.
const denseDelayCells = 1 << 20

func newDelayTable(nodes []Node, delays []graph.Delay) (delayTable, error) {
	return newDelayTableUpTo(nodes, delays, denseDelayCells)
}

// newDelayTableUpTo is newDelayTable with the dense limit given: dense up
// to denseCells pairs, and beyond when the matrix is at most four times
// the measurements.
func newDelayTableUpTo(nodes []Node, delays []graph.Delay, denseCells int) (delayTable, error) {
	t := delayTable{ids: make(map[string]int32, len(nodes)), n: len(nodes)}
	for i, n := range nodes {
		t.ids[n.Name] = int32(i)
	}
	if cells := t.n * t.n; cells <= denseCells || 4*len(delays) >= cells {
		t.dense = make([]float64, t.n*t.n)
		for i := range t.dense {
			t.dense[i] = math.NaN()
		}
	} else {
		t.sparse = make(map[uint64]float64, len(delays))
	}
	// Measurements come grouped by the probing node and, within, in the
	// nodes' order (the controller's snapshot lists both by name), so the
	// last source's number is kept and the next node is tried as the
	// target before hashing: a fleet has one measurement per pair.
	lastFrom, fromID, fromOK, toID := "", int32(0), false, int32(-1)
	for i, d := range delays {
		if d.From != lastFrom || i == 0 {
			lastFrom = d.From
			fromID, fromOK = t.ids[d.From]
		}
		from, okFrom := fromID, fromOK
		to, okTo := toID+1, true
		if int(to) >= len(nodes) || nodes[to].Name != d.To {
			to, okTo = t.ids[d.To]
		}
		if okTo {
			toID = to
		}
		switch {
		case !okFrom:
			return delayTable{}, &FieldError{Field: fmt.Sprintf("delays[%d].from", i), Value: d.From, Reason: "unknown node"}
		case !okTo:
			return delayTable{}, &FieldError{Field: fmt.Sprintf("delays[%d].to", i), Value: d.To, Reason: "unknown node"}
		case math.IsNaN(d.Ms) || math.IsInf(d.Ms, 0) || d.Ms < 0:
			return delayTable{}, &FieldError{Field: fmt.Sprintf("delays[%d].ms", i), Value: d.Ms, Reason: "must be a finite number ≥ 0"}
		}
		if t.dense != nil {
			t.dense[int(from)*t.n+int(to)] = d.Ms
		} else {
			t.sparse[pairKey(from, to)] = d.Ms
		}
	}
	return t, nil
}

func pairKey(from, to int32) uint64 { return uint64(uint32(from))<<32 | uint64(uint32(to)) }

// row writes the delays from one node to each of tos, NaN where lookup
// reports none. From a dense table it reads the row directly, with
// lookup's rule for a node to itself: through lookup, a fleet's cycle
// spent three times as long here.
func (t delayTable) row(dst []float64, from int32, tos []int32) {
	if t.dense == nil || from < 0 {
		for j, to := range tos {
			if d, ok := t.lookup(from, to); ok {
				dst[j] = d
			} else {
				dst[j] = math.NaN()
			}
		}
		return
	}
	measured := t.dense[int(from)*t.n : int(from+1)*t.n]
	for j, to := range tos {
		switch {
		case to < 0:
			dst[j] = math.NaN()
		case to == from && math.IsNaN(measured[to]):
			dst[j] = 0
		default:
			dst[j] = measured[to]
		}
	}
}

// id is a node's number, or −1 for a node the snapshot does not list.
func (t delayTable) id(name string) int32 {
	if i, ok := t.ids[name]; ok {
		return i
	}
	return -1
}

// lookup returns the measured delay, 0 from a node to itself unless
// measured, and false when unmeasured or a node is unknown.
func (t delayTable) lookup(from, to int32) (float64, bool) {
	if from < 0 || to < 0 {
		return 0, false
	}
	var d float64
	var ok bool
	if t.dense != nil {
		d = t.dense[int(from)*t.n+int(to)]
		ok = !math.IsNaN(d)
	} else {
		d, ok = t.sparse[pairKey(from, to)]
	}
	if ok {
		return d, true
	}
	if from == to {
		return 0, true
	}
	return 0, false
}

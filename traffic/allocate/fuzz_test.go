package allocate

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
)

// FuzzAllocate feeds every policy snapshots decoded from arbitrary bytes,
// with NaN, infinite, negative, extreme and missing values: each must return an
// error or a valid allocation, never panic, and give the same answer twice.
func FuzzAllocate(f *testing.F) {
	f.Add([]byte{3, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100})
	f.Add([]byte{1, 1, 1, 0, 0, 0, 0, 255, 255, 255})
	f.Add([]byte{4, 3, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := decodeSnapshot(raw)
		for _, name := range Names {
			a, errA := mustPolicy(t, name, DefaultOptions()).Allocate(s)
			b, errB := mustPolicy(t, name, DefaultOptions()).Allocate(s)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s: errors differ: %v / %v", name, errA, errB)
			}
			if errA != nil {
				continue
			}
			if err := checkAllocation(s, a); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(a.Routes) != len(b.Routes) {
				t.Fatalf("%s: not deterministic", name)
			}
		}
	})
}

// decodeSnapshot turns bytes into a small snapshot: the first bytes give
// node, component and replica counts, the rest measurements, with a few byte
// values standing for NaN, +Inf, −1 and the smallest and largest finite
// values (a sum of those overflows, a quotient by the smallest too).
func decodeSnapshot(raw []byte) traffic.Snapshot {
	next := func() byte {
		if len(raw) == 0 {
			return 7
		}
		b := raw[0]
		raw = raw[1:]
		return b
	}
	value := func() float64 {
		switch b := next(); b {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1)
		case 2:
			return -1
		case 3:
			return math.SmallestNonzeroFloat64
		case 4:
			return math.MaxFloat64
		default:
			return float64(b) / 16
		}
	}
	nodes, comps, reps := 1+int(next()%5), 1+int(next()%4), int(next()%12)
	s := traffic.Snapshot{}
	names := []string{"a", "b", "c", "d", "e"}
	for i := range nodes {
		s.Nodes = append(s.Nodes, traffic.Node{Name: names[i], Ready: next()%5 != 0, Locality: "r/z/" + names[i]})
	}
	for i := range comps {
		s.Components = append(s.Components, traffic.Component{Name: "c" + names[i]})
		if i > 0 {
			s.Calls = append(s.Calls, graph.Call{From: "c" + names[i-1], To: "c" + names[i], Rate: value()})
		}
	}
	for i := range reps {
		s.Replicas = append(s.Replicas, traffic.Replica{
			Name: "r" + string(rune('a'+i)), Component: "c" + names[int(next())%comps], Node: names[int(next())%nodes],
			Ready: next()%6 != 0, CPU: value(), CPULimit: float64(next() % 3), Requests: value(),
			LatencyP95: value(), ErrorRate: math.Min(value(), 1),
		})
		// The mean takes no byte of its own, so the corpus reads as it did.
		s.Replicas[i].LatencyMean = s.Replicas[i].LatencyP95 / 3
	}
	for i := range nodes {
		for j := range nodes {
			if b := next(); b%3 != 0 {
				s.Delays = append(s.Delays, graph.Delay{From: names[i], To: names[j], Ms: value()})
			}
		}
	}
	return s
}

// FuzzAllocateOverCycles runs the policies that remember (ARTT's
// forecasts, HEART's routing memo) over eight cycles of a sane cluster
// whose measurements the fuzzer's bytes corrupt (NaN, zero, extreme, a
// request count that dips, a replica not ready, a delay), with the fast
// path between cycles, then over six clean cycles. Every cycle must
// give an error or a valid allocation, and after the clean cycles every
// replica's forecast must be finite: one bad cycle must not poison a
// policy's memory.
func FuzzAllocateOverCycles(f *testing.F) {
	f.Add([]byte{3, 0, 4, 7, 1, 9, 11, 2, 3})
	f.Add([]byte{0, 0, 4, 0, 0, 4, 5, 1, 5, 9, 2, 0})
	base := chainCluster(1, 4, 3, 5)
	f.Fuzz(func(t *testing.T, raw []byte) {
		const corrupted, cycles = 8, 14
		// snapshotAt is cycle's snapshot: the base measured anew, with the
		// corruptions the bytes give during the first cycles.
		snapshotAt := func(cycle int) traffic.Snapshot {
			s := base
			s.At = base.At.Add(time.Duration(cycle) * 15 * time.Second)
			s.MeasuredAt = s.At
			s.Replicas = slices.Clone(base.Replicas)
			// Three bytes a change: which replica (or delay), which
			// measurement, what value; two changes a cycle.
			for i := 6 * cycle; cycle < corrupted && i+2 < len(raw) && i < 6*(cycle+1); i += 3 {
				r := &s.Replicas[int(raw[i])%len(s.Replicas)]
				var field *float64
				switch k := int(raw[i+1]) % 6; k {
				case 4:
					r.Ready = false
					continue
				case 5:
					s.Delays = slices.Clone(s.Delays)
					field = &s.Delays[int(raw[i])%len(s.Delays)].Ms
				default:
					field = []*float64{&r.CPU, &r.Requests, &r.LatencyP95, &r.ErrorRate}[k]
				}
				*field = []float64{math.NaN(), 0, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e150, *field * 10, *field / 100, *field}[int(raw[i+2])%8]
				if field == &r.ErrorRate {
					*field = min(*field, 1)
				}
			}
			return s
		}
		for _, name := range []string{"artt", "heart"} {
			p := mustPolicy(t, name, DefaultOptions())
			var last traffic.Allocation
			for cycle := range cycles {
				s := snapshotAt(cycle)
				a, err := p.Allocate(s)
				if err != nil {
					if cycle >= corrupted {
						t.Fatalf("%s, clean cycle %d: %v", name, cycle, err)
					}
					continue
				}
				if err := checkAllocation(s, a); err != nil {
					t.Fatalf("%s, cycle %d: %v", name, cycle, err)
				}
				last = a
				// The fast path between cycles, on the same measurements.
				if pr, ok := p.(traffic.Protector); ok {
					if a, _, err := pr.Protect(s); err == nil {
						if err := checkAllocation(s, a); err != nil {
							t.Fatalf("%s, protecting after cycle %d: %v", name, cycle, err)
						}
					}
				}
			}
			for _, r := range last.Routes {
				for _, g := range r.Groups {
					for _, fc := range g.Forecasts {
						if math.IsNaN(fc.Forecast) || math.IsInf(fc.Forecast, 0) || math.IsNaN(fc.Share) {
							t.Fatalf("%s: %s's forecast %v (share %v) after six clean cycles", name, fc.Replica, fc.Forecast, fc.Share)
						}
					}
				}
			}
		}
	})
}

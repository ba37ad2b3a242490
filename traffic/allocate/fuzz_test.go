package allocate

import (
	"math"
	"testing"

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
			s.Calls = append(s.Calls, traffic.Call{From: "c" + names[i-1], To: "c" + names[i], Rate: value()})
		}
	}
	for i := range reps {
		s.Replicas = append(s.Replicas, traffic.Replica{
			Name: "r" + string(rune('a'+i)), Component: "c" + names[int(next())%comps], Node: names[int(next())%nodes],
			Ready: next()%6 != 0, CPU: value(), CPULimit: float64(next() % 3), Requests: value(),
			LatencyP95: value(), ErrorRate: math.Min(value(), 1),
		})
	}
	for i := range nodes {
		for j := range nodes {
			if b := next(); b%3 != 0 {
				s.Delays = append(s.Delays, traffic.Delay{From: names[i], To: names[j], Ms: value()})
			}
		}
	}
	return s
}

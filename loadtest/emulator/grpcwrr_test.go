package emulator

import (
	"math"
	"testing"
)

// The stride scheduler takes each endpoint in proportion to its weight,
// and a rebuild (new weights, the same sequence) before every pick does
// not restart it: three endpoints of nearly equal weight, rebuilt at each
// of 3,000 picks, each take their share, where a schedule restarted at
// every pick would give every pick to the heaviest.
func TestGRPCWRRFollowsItsWeightsAcrossRebuilds(t *testing.T) {
	hosts := []*replica{{id: 0}, {id: 1}, {id: 2}}
	for _, c := range []struct {
		name    string
		weights []uint16
	}{
		{"3:2:1", []uint16{65535, 43690, 21845}},
		{"nearly equal", []uint16{65535, 65000, 64000}},
	} {
		w := &grpcWRR{hosts: hosts, seq: 12345}
		counts := make([]float64, len(hosts))
		const picks = 3000
		for range picks {
			w.weights = append(w.weights[:0], c.weights...) // the rebuild
			counts[w.next()]++
		}
		var sum float64
		for _, x := range c.weights {
			sum += float64(x)
		}
		for i, x := range c.weights {
			want := float64(x) / sum
			if got := counts[i] / picks; math.Abs(got-want) > 0.01 {
				t.Errorf("%s: endpoint %d took %.3f of the picks, its weight's share is %.3f", c.name, i, got, want)
			}
		}
	}
}

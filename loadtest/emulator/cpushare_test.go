package emulator

import (
	"math"
	"testing"
)

func TestMaxMinLevel(t *testing.T) {
	cases := []struct {
		name     string
		demands  []float64
		capacity float64
		want     float64
	}{
		// live-degradation's neighbour: four pods at their 0.05-core
		// limits and one busy thread on 0.2 cores each get 0.04.
		{"a thread beside four sub-core pods", []float64{0.05, 0.05, 0.05, 0.05, 1}, 0.2, 0.04},
		// node-contention: four pods at a core each and eight threads on
		// four cores each get a third.
		{"eight threads beside four one-core pods", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 4, 1.0 / 3},
		// A pod wanting less than an equal share keeps it; what it leaves
		// goes to the others: 0.2 − 0.01 − 2 × 0.05 = 0.09 for the thread.
		{"the others share what a quiet pod leaves", []float64{1, 0.05, 0.01, 0.05}, 0.2, 0.09},
		{"a quota of a fifth over four pods", []float64{0.05, 0.05, 0.05, 0.05}, 0.04, 0.01},
		{"enough for all", []float64{0.05, 0.05, 1}, 2, math.Inf(1)},
		// 0.2 − 3 × 0.05 rounds below 0.05: the three pods' demands sit on
		// the level and must stay met.
		{"a level a demand sits on", []float64{0.05, 0.05, 0.05, 1}, 0.2, 0.05},
		{"no capacity", []float64{0.05, 1}, 0, 0},
	}
	for _, c := range cases {
		if got := maxMinLevel(c.demands, c.capacity); math.Abs(got-c.want) > 1e-12 && got != c.want {
			t.Errorf("%s: level %v, want %v", c.name, got, c.want)
		}
	}
}

package traffic

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/artt-dev/artt/graph"
)

// TestDelayTableReadsAnyOrder builds the table from the same measurements
// in the order the controller lists them (by source, then target, as the
// nodes are listed), shuffled, and with pairs missing; few pairs go in a
// sparse table, and in a dense one when the cluster is small. Every lookup
// and every DelayMatrix row must agree with the measurements, whichever
// path found the target's number.
func TestDelayTableReadsAnyOrder(t *testing.T) {
	const n = 12
	var nodes []Node
	for i := range n {
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i)})
	}
	rng := rand.New(rand.NewPCG(3, 1))
	want := map[[2]string]float64{}
	var ordered []graph.Delay
	for _, from := range nodes {
		for _, to := range nodes {
			if from == to || rng.IntN(4) == 0 {
				continue // no self pairs, and some pairs unmeasured
			}
			d := graph.Delay{From: from.Name, To: to.Name, Ms: math.Round(rng.Float64()*1000) / 100}
			ordered = append(ordered, d)
			want[[2]string{d.From, d.To}] = d.Ms
		}
	}
	shuffled := append([]graph.Delay(nil), ordered...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	few := ordered[:len(ordered)/5] // few enough for a sparse table
	for _, c := range []struct {
		name       string
		delays     []graph.Delay
		denseCells int // the dense limit: 0 leaves only the four-times rule
		wantSparse bool
	}{
		{"ordered", ordered, 0, false},
		{"shuffled", shuffled, 0, false},
		{"sparse", few, 0, true},
		{"few, small cluster", few, denseDelayCells, false},
	} {
		table, err := newDelayTableUpTo(nodes, c.delays, c.denseCells)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (table.dense == nil) != c.wantSparse {
			t.Fatalf("%s: dense %v", c.name, table.dense != nil)
		}
		measured := map[[2]string]bool{}
		for _, d := range c.delays {
			measured[[2]string{d.From, d.To}] = true
		}
		x := &Index{delays: table}
		amounts := make([]Amount, n)
		for i, node := range nodes {
			amounts[i] = Amount{Node: node.Name}
		}
		matrix := x.DelayMatrix(nil, amounts, amounts)
		for i, from := range nodes {
			for j, to := range nodes {
				got, ok := x.Delay(from.Name, to.Name)
				key := [2]string{from.Name, to.Name}
				switch {
				case measured[key] && (!ok || got != want[key]):
					t.Errorf("%s: %s → %s = %v, %v; want %v", c.name, from.Name, to.Name, got, ok, want[key])
				case !measured[key] && from == to && (!ok || got != 0):
					t.Errorf("%s: %s to itself = %v, %v; want 0", c.name, from.Name, got, ok)
				case !measured[key] && from != to && ok:
					t.Errorf("%s: %s → %s unmeasured but read %v", c.name, from.Name, to.Name, got)
				}
				if m := matrix[i*n+j]; (math.IsNaN(m) && ok) || (!math.IsNaN(m) && (!ok || m != got)) {
					t.Errorf("%s: DelayMatrix %s → %s = %v; graph.Delay says %v, %v", c.name, from.Name, to.Name, m, got, ok)
				}
			}
		}
	}
}

// TestDelayTableNamesUnknownNodes checks the error names the field and
// the value, wherever the unknown name sits in the order.
func TestDelayTableNamesUnknownNodes(t *testing.T) {
	nodes := []Node{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	for _, c := range []struct {
		delays []graph.Delay
		field  string
		value  string
	}{
		{[]graph.Delay{{From: "a", To: "b", Ms: 1}, {From: "a", To: "x", Ms: 1}}, "delays[1].to", "x"},
		{[]graph.Delay{{From: "a", To: "b", Ms: 1}, {From: "a", To: "c", Ms: 1}, {From: "y", To: "a", Ms: 1}}, "delays[2].from", "y"},
	} {
		_, err := newDelayTable(nodes, c.delays)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || fe.Value != c.value {
			t.Errorf("%v: error %v; want field %s value %s", c.delays, err, c.field, c.value)
		}
	}
}

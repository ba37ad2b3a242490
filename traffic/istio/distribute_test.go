package istio

import (
	"math"
	"strings"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

func TestRoundToPercent(t *testing.T) {
	cases := []struct {
		name      string
		keys      []string
		fractions []float64
		want      []uint32
	}{
		{"thirds: the tie goes to the first key", []string{"c", "a", "b"}, []float64{1, 1, 1}, []uint32{33, 34, 33}},
		{"exact", []string{"a", "b"}, []float64{0.25, 0.75}, []uint32{25, 75}},
		{"largest remainders", []string{"a", "b", "c"}, []float64{0.456, 0.274, 0.27}, []uint32{46, 27, 27}},
		{"a sliver rounds to 0", []string{"a", "b"}, []float64{0.996, 0.004}, []uint32{100, 0}},
		{"unnormalised input", []string{"a", "b"}, []float64{3, 1}, []uint32{75, 25}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RoundToPercent(tc.keys, tc.fractions)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("RoundToPercent = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestRoundToPercentRejects(t *testing.T) {
	for _, fr := range [][]float64{{math.NaN(), 1}, {-1, 2}, {0, 0}, {math.Inf(1), 1}} {
		if _, err := RoundToPercent([]string{"a", "b"}, fr); err == nil {
			t.Errorf("RoundToPercent(%v): no error", fr)
		}
	}
}

func locality(node string) (string, bool) {
	if node == "" || node == "nolocality" {
		return "", false
	}
	return "r1/z1/" + node, true
}

func TestDistributes(t *testing.T) {
	r := traffic.Route{Sources: []traffic.Source{
		{Node: "n2", Supply: 0.5, To: []traffic.Amount{{Node: "n1", Value: 0.2}, {Node: "n2", Value: 0.8}}},
		{Node: "n1", Supply: 0.5, To: []traffic.Amount{{Node: "n1", Value: 0.999}, {Node: "n3", Value: 0.001}}},
	}}
	ds, err := Distributes(r, locality)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].From != "r1/z1/n1" || ds[1].From != "r1/z1/n2" {
		t.Fatalf("entries %v, want one per source sorted by locality", ds)
	}
	if len(ds[0].To) != 1 || ds[0].To["r1/z1/n1"] != 100 {
		t.Errorf("n1 → %v, want 100 to n1 and the 0.1%% sliver left out", ds[0].To)
	}
	if ds[1].To["r1/z1/n1"] != 20 || ds[1].To["r1/z1/n2"] != 80 {
		t.Errorf("n2 → %v, want 20/80", ds[1].To)
	}
	if _, err := Distributes(traffic.Route{Sources: []traffic.Source{{Node: "nolocality", Supply: 1, To: []traffic.Amount{{Node: "n1", Value: 1}}}}}, locality); err == nil || !strings.Contains(err.Error(), "nolocality") {
		t.Errorf("a node without locality: error %v, want one naming it", err)
	}
}

func TestValidateIstioRules(t *testing.T) {
	ok := Distribute{From: "r/z/a", To: map[string]uint32{"r/z/a": 60, "r/z/b": 40}}
	cases := []struct {
		name string
		ds   []Distribute
		says string
	}{
		{"sum 60", []Distribute{{From: "r/z/a", To: map[string]uint32{"r/z/a": 60}}}, "sum to 100"},
		{"weight 0", []Distribute{{From: "r/z/a", To: map[string]uint32{"r/z/a": 100, "r/z/b": 0}}}, "[1, 100]"},
		{"duplicate from", []Distribute{ok, ok}, "duplicate"},
		{"empty part", []Distribute{{From: "r//a", To: map[string]uint32{"r/z/a": 100}}}, "non-empty"},
		{"two parts", []Distribute{{From: "r/z", To: map[string]uint32{"r/z/a": 100}}}, "region/zone/subzone"},
		{"long part", []Distribute{{From: "r/z/" + strings.Repeat("x", 64), To: map[string]uint32{"r/z/a": 100}}}, "63"},
		{"empty to", []Distribute{{From: "r/z/a"}}, "must not be empty"},
	}
	for _, tc := range cases {
		if err := Validate(tc.ds); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.says)
		}
	}
	if err := Validate([]Distribute{ok}); err != nil {
		t.Errorf("valid entry refused: %v", err)
	}
}

// FuzzRoundToPercent: any non-negative input with a positive sum yields
// integers summing to 100, each within 1 of its exact value, and listed
// weights valid for Istio.
func FuzzRoundToPercent(f *testing.F) {
	f.Add([]byte{1, 1, 1})
	f.Add([]byte{255, 0, 3, 200, 7})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || len(raw) > 100 {
			return
		}
		keys := make([]string, len(raw))
		fr := make([]float64, len(raw))
		total := 0.0
		for i, b := range raw {
			keys[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
			fr[i] = float64(b) / 7
			total += fr[i]
		}
		w, err := RoundToPercent(keys, fr)
		if total == 0 {
			if err == nil {
				t.Fatal("zero total accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		sum := uint32(0)
		d := Distribute{From: "r/z/src", To: map[string]uint32{}}
		for i, x := range w {
			sum += x
			if math.Abs(float64(x)-100*fr[i]/total) >= 1 {
				t.Fatalf("weight %d for exact %v", x, 100*fr[i]/total)
			}
			if x > 0 {
				d.To["r/z/"+keys[i]] = x
			}
		}
		if sum != 100 {
			t.Fatalf("weights %v sum to %d", w, sum)
		}
		if err := Validate([]Distribute{d}); err != nil {
			t.Fatal(err)
		}
	})
}

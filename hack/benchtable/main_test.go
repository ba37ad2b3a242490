package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestTablesFromBenchOutput(t *testing.T) {
	in := `goos: linux
BenchmarkCycle/topology=spread/replicas=100/nodes=5/policy=heart-2   3   500000 ns/op   1000000 B/op   811 allocs/op
BenchmarkCycle/topology=spread/replicas=100/nodes=5/policy=lata-2    3  1500000 ns/op   2000000 B/op   811 allocs/op
BenchmarkCycle/topology=span20/replicas=1000/nodes=50/policy=heart-2 3  2000000 ns/op
BenchmarkSum-8   28610   40000 ns/op
BenchmarkPeriodicCycle/replicas=100/policy=heart/start=cold-2      3   800000 ns/op
BenchmarkPeriodicCycle/replicas=100/policy=heart/start=previous-2  3   200000 ns/op
PASS
`
	tables, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 3 || tables[0].name != "BenchmarkCycle" || tables[1].name != "BenchmarkSum" {
		t.Fatalf("tables %v", tables)
	}
	var out bytes.Buffer
	tables[0].write(&out)
	for _, want := range []string{
		"| topology=spread replicas=100 nodes=5 | 0.5 | 1.00 | 1.5 | 2.00 | 3.0× |",
		"| topology=span20 replicas=1000 nodes=50 | 2 | 0.00 | – | – | – |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	// Two compared parts: the last is the column, the other stays in the row.
	out.Reset()
	tables[2].write(&out)
	if want := "| replicas=100 policy=heart | 0.8 | 0.00 | 0.2 | 0.00 | 0.2× |"; !strings.Contains(out.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, out.String())
	}
}

// Command benchtable turns `go test -bench` output into Markdown tables, one
// per benchmark function: a row per setting, a column per compared
// implementation (the policy= or solver= part of the name), time and memory
// per operation, and each implementation's time as a multiple of the first
// one's, so a side-by-side run reads at a glance. make bench pipes its
// benchmarks through it; the raw output is kept beside the tables.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// line matches "BenchmarkX/a=1/b=2-8   10   123 ns/op   456 B/op   7 allocs/op".
var line = regexp.MustCompile(`^(Benchmark[^\s/]+?)(/\S*?)?(-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) B/op)?`)

// columnKeys name the part of a benchmark's name that is compared side by
// side; when a name has several, the last one is the column and the others
// stay in the row.
var columnKeys = []string{"policy=", "solver=", "start="}

type result struct{ nsPerOp, bytesPerOp float64 }

type table struct {
	name    string
	rows    []string
	columns []string
	cells   map[[2]string]result
}

func main() {
	tables, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	for _, t := range tables {
		t.write(os.Stdout)
	}
}

func parse(r io.Reader) ([]*table, error) {
	var order []*table
	byName := map[string]*table{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return nil, fmt.Errorf("%q: ns/op %q: %w", sc.Text(), m[4], err)
		}
		var bytes float64
		if m[5] != "" {
			if bytes, err = strconv.ParseFloat(m[5], 64); err != nil {
				return nil, fmt.Errorf("%q: B/op %q: %w", sc.Text(), m[5], err)
			}
		}
		row, column := split(strings.TrimPrefix(m[2], "/"))
		t := byName[m[1]]
		if t == nil {
			t = &table{name: m[1], cells: map[[2]string]result{}}
			byName[m[1]] = t
			order = append(order, t)
		}
		t.add(row, column, result{ns, bytes})
	}
	return order, sc.Err()
}

// split separates the compared implementation from the rest of the name.
func split(sub string) (row, column string) {
	parts := strings.Split(sub, "/")
	at := -1
	for i, part := range parts {
		for _, k := range columnKeys {
			if strings.HasPrefix(part, k) {
				at, column = i, strings.TrimPrefix(part, k)
			}
		}
	}
	var rest []string
	for i, part := range parts {
		if i != at && part != "" {
			rest = append(rest, part)
		}
	}
	return strings.Join(rest, " "), column
}

func (t *table) add(row, column string, r result) {
	if !contains(t.rows, row) {
		t.rows = append(t.rows, row)
	}
	if !contains(t.columns, column) {
		t.columns = append(t.columns, column)
	}
	t.cells[[2]string{row, column}] = r
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (t *table) write(w io.Writer) {
	fmt.Fprintf(w, "\n%s\n\n| setting |", t.name)
	for _, c := range t.columns {
		fmt.Fprintf(w, " %s ms | %s MB |", label(c), label(c))
	}
	for _, c := range t.columns[1:] {
		fmt.Fprintf(w, " %s ÷ %s |", label(c), label(t.columns[0]))
	}
	fmt.Fprint(w, "\n|---|")
	fmt.Fprint(w, strings.Repeat("---:|---:|", len(t.columns)), strings.Repeat("---:|", len(t.columns)-1), "\n")
	for _, r := range t.rows {
		fmt.Fprintf(w, "| %s |", r)
		for _, c := range t.columns {
			if x, ok := t.cells[[2]string{r, c}]; ok {
				fmt.Fprintf(w, " %s | %.2f |", millis(x.nsPerOp), x.bytesPerOp/1e6)
			} else {
				fmt.Fprint(w, " – | – |")
			}
		}
		first, okFirst := t.cells[[2]string{r, t.columns[0]}]
		for _, c := range t.columns[1:] {
			if x, ok := t.cells[[2]string{r, c}]; ok && okFirst && first.nsPerOp > 0 {
				fmt.Fprintf(w, " %.1f× |", x.nsPerOp/first.nsPerOp)
			} else {
				fmt.Fprint(w, " – |")
			}
		}
		fmt.Fprintln(w)
	}
}

func label(column string) string {
	if column == "" {
		return "time"
	}
	return column
}

// millis prints a time per operation in milliseconds with three
// significant figures.
func millis(ns float64) string {
	return strconv.FormatFloat(ns/1e6, 'g', 3, 64)
}

package promtest

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// History is a synthetic past for a Prometheus: samples at given times,
// written as OpenMetrics and turned into TSDB blocks by promtool before
// the server starts, so a test can query hours of data at once.
type History struct {
	families map[string]*family
}

type family struct {
	typ    string // counter or gauge
	series map[string][]sample
}

type sample struct {
	at time.Time
	v  float64
}

// Gauge records a gauge sample.
func (h *History) Gauge(name, labels string, at time.Time, v float64) {
	h.add(name, "gauge", labels, at, v)
}

// Counter records a counter's cumulative value; name ends in _total.
func (h *History) Counter(name, labels string, at time.Time, v float64) {
	h.add(name, "counter", labels, at, v)
}

func (h *History) add(name, typ, labels string, at time.Time, v float64) {
	if h.families == nil {
		h.families = map[string]*family{}
	}
	f := h.families[name]
	if f == nil {
		f = &family{typ: typ, series: map[string][]sample{}}
		h.families[name] = f
	}
	f.series[labels] = append(f.series[labels], sample{at, v})
}

// OpenMetrics writes the samples grouped by family and series, in time
// order, as promtool's create-blocks-from openmetrics reads them.
func (h *History) OpenMetrics() []byte {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(h.families)) {
		f := h.families[n]
		fmt.Fprintf(&b, "# TYPE %s %s\n", strings.TrimSuffix(n, "_total"), f.typ)
		for _, k := range slices.Sorted(maps.Keys(f.series)) {
			ss := f.series[k]
			sort.Slice(ss, func(i, j int) bool { return ss[i].at.Before(ss[j].at) })
			for _, s := range ss {
				fmt.Fprintf(&b, "%s{%s} %s %s\n", n, k, strconv.FormatFloat(s.v, 'g', -1, 64),
					strconv.FormatFloat(float64(s.at.UnixMilli())/1000, 'f', 3, 64))
			}
		}
	}
	b.WriteString("# EOF\n")
	return []byte(b.String())
}

// promtoolBinary is $PROMTOOL_BIN or promtool on PATH (Debian's prometheus
// package ships it).
func promtoolBinary() (string, error) {
	if b := os.Getenv("PROMTOOL_BIN"); b != "" {
		return b, nil
	}
	return exec.LookPath("promtool")
}

// StartWithHistory writes h into dir's TSDB with promtool and starts
// Prometheus on it, scraping targets as Start does.
func StartWithHistory(dir string, h *History, targets []string, scrapeInterval time.Duration) (*Server, error) {
	tool, err := promtoolBinary()
	if err != nil {
		return nil, fmt.Errorf("promtool not found (apt-get install prometheus, or set PROMTOOL_BIN): %w", err)
	}
	input := filepath.Join(dir, "history.om")
	if err := os.WriteFile(input, h.OpenMetrics(), 0o644); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	out, err := exec.Command(tool, "tsdb", "create-blocks-from", "openmetrics", input, data).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("promtool tsdb create-blocks-from openmetrics: %w: %s", err, out)
	}
	return Start(dir, targets, scrapeInterval)
}

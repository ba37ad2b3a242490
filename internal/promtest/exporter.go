package promtest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Series is one emulated time series in the Prometheus text format: a
// counter growing at Rate per second since the exporter started, or, when
// Rate is 0, a gauge holding Value.
type Series struct {
	Name, Labels string
	Rate, Value  float64
}

// Exporter serves a set of emulated series. Counters are computed at scrape
// time, so rate() over them returns Rate exactly.
type Exporter struct {
	start time.Time
	mu    sync.Mutex
	all   []Series
}

// NewExporter returns an exporter serving series, counting from now.
func NewExporter(series []Series) *Exporter {
	return &Exporter{start: time.Now(), all: series}
}

// Set replaces the served series; counters keep counting from the start.
func (e *Exporter) Set(series []Series) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = series
}

// ServeHTTP writes the series in the Prometheus text exposition format.
func (e *Exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	elapsed := time.Since(e.start).Seconds()
	var b strings.Builder
	for _, s := range e.all {
		v := s.Value
		if s.Rate != 0 {
			v = s.Rate * elapsed
		}
		fmt.Fprintf(&b, "%s{%s} %g\n", s.Name, s.Labels, v)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

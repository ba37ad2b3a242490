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
	mu  sync.Mutex
	all []Series
	// counters hold each counter's value at its last rate change.
	counters map[string]counter
}

type counter struct {
	base float64
	at   time.Time
}

// NewExporter returns an exporter serving series, counting from now.
func NewExporter(series []Series) *Exporter {
	e := &Exporter{counters: make(map[string]counter)}
	e.Set(series)
	return e
}

// Set replaces the served series. A counter that stays keeps its value and
// grows at its new rate from now on, as a real counter whose rate changed
// would: rate() then moves over its window instead of jumping.
func (e *Exporter) Set(series []Series) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	old := make(map[string]Series, len(e.all))
	for _, s := range e.all {
		old[s.Name+"{"+s.Labels+"}"] = s
	}
	next := make(map[string]counter, len(series))
	for _, s := range series {
		key := s.Name + "{" + s.Labels + "}"
		c := counter{at: now}
		if prev, ok := e.counters[key]; ok {
			c.base = prev.base + old[key].Rate*now.Sub(prev.at).Seconds()
		}
		next[key] = c
	}
	e.all, e.counters = series, next
}

// ServeHTTP writes the series in the Prometheus text exposition format.
func (e *Exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	var b strings.Builder
	for _, s := range e.all {
		v := s.Value
		if s.Rate != 0 {
			c := e.counters[s.Name+"{"+s.Labels+"}"]
			v = c.base + s.Rate*now.Sub(c.at).Seconds()
		}
		fmt.Fprintf(&b, "%s{%s} %g\n", s.Name, s.Labels, v)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

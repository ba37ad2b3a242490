package promtest

import (
	"fmt"
	"math"
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

// Exporter serves a set of emulated series, counters computed at scrape
// time. Series named container_* carry their own timestamps, as cAdvisor
// stamps the container metrics it exports. Once told the scrape interval,
// the exporter stamps them on a grid of that interval set by the first
// scrape, each with its value at that point: rate() over them then returns
// Rate exactly however late a loaded machine answers a scrape (by less than
// half an interval). Other series are stamped by Prometheus when the scrape
// begins, and marked stale once they leave the exposition, as Envoy's and
// kube-state-metrics' series are.
type Exporter struct {
	mu  sync.Mutex
	all []Series
	// counters hold each counter's value at its last rate change.
	counters map[string]counter
	// interval is the scrape interval the grid follows (0: stamp with the
	// time of the answer); first is the grid's origin.
	interval time.Duration
	first    time.Time
}

// counter is a counter's value at its last rate change, and the rate it
// grew at before then.
type counter struct {
	base   float64
	at     time.Time
	before float64
}

// valueAt is the counter's value at t, before or after its last rate change.
func (c counter) valueAt(t time.Time, rate float64) float64 {
	if t.Before(c.at) {
		return c.base - c.before*c.at.Sub(t).Seconds()
	}
	return c.base + rate*t.Sub(c.at).Seconds()
}

// cadvisorPrefix names the series cAdvisor exports, with timestamps.
const cadvisorPrefix = "container_"

// StampEvery has the exporter stamp container_* series on a grid of the
// scrape interval (StartWithExporter calls it for an *Exporter).
func (e *Exporter) StampEvery(interval time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.interval = interval
}

// stamp is the time a container_* sample answered at now is stamped with:
// the grid point nearest now.
func (e *Exporter) stamp(now time.Time) time.Time {
	if e.interval <= 0 {
		return now
	}
	if e.first.IsZero() {
		e.first = now
	}
	k := math.Round(float64(now.Sub(e.first)) / float64(e.interval))
	return e.first.Add(time.Duration(k) * e.interval)
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
			c.base, c.before = prev.valueAt(now, old[key].Rate), old[key].Rate
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
	stamp := e.stamp(now)
	var b strings.Builder
	for _, s := range e.all {
		stamped := strings.HasPrefix(s.Name, cadvisorPrefix)
		v := s.Value
		if s.Rate != 0 {
			at := now
			if stamped {
				at = stamp
			}
			v = e.counters[s.Name+"{"+s.Labels+"}"].valueAt(at, s.Rate)
		}
		if stamped {
			fmt.Fprintf(&b, "%s{%s} %g %d\n", s.Name, s.Labels, v, stamp.UnixMilli())
			continue
		}
		fmt.Fprintf(&b, "%s{%s} %g\n", s.Name, s.Labels, v)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

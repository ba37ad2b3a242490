package scaler

import (
	"math"
	"sync"
	"time"
)

// rangeCache keeps each range query's last answer, so the next poll asks
// Prometheus only for the points that are new or not yet settled instead of
// re-evaluating the whole history (279 points at the default knobs, of
// which a poll every 30 s adds two). Points lie on multiples of the step,
// so successive polls share them exactly. A point is settled once it is
// older than the settle margin before the previous answer's newest point:
// Prometheus stamps a sample with its scrape's start and stores it at the
// scrape's end, so the newest points can still change; the margin asks
// for them again. A settled point found empty may be filled later (a block
// backfilled into the past, a late remote write), so the empty ones are
// asked again once every gapRetry: a poll at a time would ask a new
// workload's calendar, empty for most of its week, for its whole range.
type rangeCache struct {
	settle   time.Duration
	idle     time.Duration
	gapRetry time.Duration

	mu      sync.Mutex
	entries map[rangeKey]*rangeEntry
	swept   time.Time
}

// rangeKey is one query as asked: the same text against the same
// Prometheus with the same step and length.
type rangeKey struct {
	address, query string
	step           time.Duration
	points         int
}

type rangeEntry struct {
	end    time.Time // the newest point
	values []float64
	used   time.Time
	// gapsAsked is when the entry's empty points were last asked for.
	gapsAsked time.Time
}

func newRangeCache(settle, idle, gapRetry time.Duration) *rangeCache {
	return &rangeCache{settle: settle, idle: idle, gapRetry: gapRetry, entries: make(map[rangeKey]*rangeEntry)}
}

// known returns the values of the range of n points ending at end that the
// previous answer already settled (NaN elsewhere), and the index of the
// first point to ask for: n when nothing is new, 0 when nothing is known.
func (c *rangeCache) known(k rangeKey, end time.Time, now time.Time) (values []float64, first int) {
	values = unknownPoints(k.points)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	e, ok := c.entries[k]
	if !ok || e.end.After(end) {
		return values, 0
	}
	e.used = now
	// Point i of the new range is at end − (n−1−i)·step; it is settled in
	// the old one if it is at or before settledUntil.
	settledUntil := e.end.Add(-c.settle)
	start := end.Add(-time.Duration(k.points-1) * k.step)
	oldStart := e.end.Add(-time.Duration(k.points-1) * k.step)
	first = 0
	for i := range k.points {
		t := start.Add(time.Duration(i) * k.step)
		if t.After(settledUntil) {
			break
		}
		if !t.Before(oldStart) {
			values[i] = e.values[int(t.Sub(oldStart)/k.step)]
		}
		first = i + 1
	}
	if now.Sub(e.gapsAsked) >= c.gapRetry {
		if gap := firstEmpty(values[:first]); gap >= 0 {
			// Asked again from the first gap: what is not answered now is empty.
			copy(values[gap:first], unknownPoints(first-gap))
			first = gap
		}
	}
	return values, first
}

// firstEmpty is the index of the first point without a value, -1 if none.
func firstEmpty(values []float64) int {
	for i, v := range values {
		if math.IsNaN(v) {
			return i
		}
	}
	return -1
}

// unknownPoints is n points not yet read: NaN, as Prometheus leaves a gap.
func unknownPoints(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

// store records a complete answer, whose points from askedFrom on were
// asked for.
func (c *rangeCache) store(k rangeKey, end time.Time, values []float64, askedFrom int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if ok && e.end.After(end) {
		return // a later answer is already kept
	}
	if !ok {
		e = &rangeEntry{}
		c.entries[k] = e
	}
	e.end, e.used = end, now
	e.values = append(e.values[:0], values...)
	if firstEmpty(values[:askedFrom]) < 0 {
		e.gapsAsked = now // every empty point was just asked for
	}
}

// sweep drops answers no poll asked for within the idle limit, at most once
// a minute, so memory follows the live ScaledObjects.
func (c *rangeCache) sweep(now time.Time) {
	if now.Sub(c.swept) < time.Minute {
		return
	}
	c.swept = now
	for k, e := range c.entries {
		if now.Sub(e.used) > c.idle {
			delete(c.entries, k)
		}
	}
}

// len is the number of answers kept.
func (c *rangeCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

package scaler

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/artt-dev/artt/scaler/metric"
)

// pollCache holds, per ScaledObject trigger, its parsed Spec and the last
// evaluation. KEDA calls GetMetrics and IsActive back to back, and several
// KEDA replicas or streams may ask at once: all of them share one round of
// queries per TTL. Entries idle for longer than the idle limit are dropped,
// so memory follows the live ScaledObjects.
type pollCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*pollEntry
}

type pollEntry struct {
	spec Spec

	// mu is held while a round is in flight, so concurrent callers wait for
	// it and share its answer instead of querying again.
	mu        sync.Mutex
	eval      metric.Evaluation
	err       error
	evaluated time.Time
	lastUsed  time.Time // guarded by pollCache.mu
}

func newPollCache(ttl time.Duration, now func() time.Time) *pollCache {
	return &pollCache{ttl: ttl, now: now, entries: make(map[string]*pollEntry)}
}

// fingerprint identifies a trigger by its ScaledObject and metadata.
func fingerprint(namespace, name string, md map[string]string) string {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(namespace)
	b.WriteByte(0)
	b.WriteString(name)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(md[k])
	}
	return b.String()
}

// entry returns the entry for a trigger, parsing its metadata on first use.
// Metadata that does not parse creates no entry.
func (c *pollCache) entry(namespace, name string, md map[string]string, parse func() (Spec, error)) (*pollEntry, error) {
	key := fingerprint(namespace, name, md)
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok {
		e.lastUsed = c.now()
	}
	c.mu.Unlock()
	if ok {
		return e, nil
	}
	spec, err := parse()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		return e, nil
	}
	e = &pollEntry{spec: spec, lastUsed: c.now()}
	c.entries[key] = e
	return e, nil
}

// evaluate returns the entry's evaluation, running a new round through
// compute when the last one is older than the TTL. Failed rounds are cached
// too, so an outage costs one round per TTL, not one per call. The round runs
// detached from the caller's cancellation (its queries have their own
// timeouts), because other callers may be waiting for it.
func (c *pollCache) evaluate(ctx context.Context, e *pollEntry, compute func(context.Context, Spec) (metric.Evaluation, error)) (metric.Evaluation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := c.now()
	if !e.evaluated.IsZero() && now.Sub(e.evaluated) < c.ttl {
		return e.eval, e.err
	}
	e.eval, e.err = compute(context.WithoutCancel(ctx), e.spec)
	e.evaluated = c.now()
	return e.eval, e.err
}

// touch marks an entry as in use, for long-lived streams.
func (c *pollCache) touch(e *pollEntry) {
	c.mu.Lock()
	e.lastUsed = c.now()
	c.mu.Unlock()
}

// evictIdle drops entries unused for longer than idle and returns their
// Specs.
func (c *pollCache) evictIdle(idle time.Duration) []Spec {
	c.mu.Lock()
	defer c.mu.Unlock()
	var gone []Spec
	now := c.now()
	for k, e := range c.entries {
		if now.Sub(e.lastUsed) > idle {
			gone = append(gone, e.spec)
			delete(c.entries, k)
		}
	}
	return gone
}

// liveObjects is the set of ScaledObjects (namespace, name) with an entry.
func (c *pollCache) liveObjects() map[[2]string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[[2]string]bool, len(c.entries))
	for _, e := range c.entries {
		out[[2]string{e.spec.Namespace, e.spec.Name}] = true
	}
	return out
}

// size is the number of entries.
func (c *pollCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

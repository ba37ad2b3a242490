package metric

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MetadataError is bad trigger metadata: it names the key and the value.
type MetadataError struct {
	Key, Value, Reason string
}

func (e *MetadataError) Error() string {
	return fmt.Sprintf("metadata %q = %q: %s", e.Key, e.Value, e.Reason)
}

// Reader reads typed values from a trigger's metadata, keeps every error
// and remembers the keys it read, so that a ScaledObject's author gets
// every problem at once: unknown keys first, then each key's value.
type Reader struct {
	md   map[string]string
	read map[string]bool
	errs []error
}

// NewReader reads md.
func NewReader(md map[string]string) *Reader {
	return &Reader{md: md, read: map[string]bool{}}
}

// Err is every problem found, joined (errors.As finds the first), or nil:
// first each key neither read nor passed through (sorted), each with
// unknownReason, then each value refused.
func (r *Reader) Err(unknownReason string, passThrough ...string) error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(r.md)) {
		if !r.read[k] && !slices.Contains(passThrough, k) {
			errs = append(errs, &MetadataError{k, r.md[k], unknownReason})
		}
	}
	return errors.Join(append(errs, r.errs...)...)
}

// Read is every key read so far, sorted: with empty metadata, every key a
// trigger may set.
func (r *Reader) Read() []string { return slices.Sorted(maps.Keys(r.read)) }

// value is the key's trimmed value, "" when it is absent or blank; the key
// is marked read.
func (r *Reader) value(key string) string {
	r.read[key] = true
	return strings.TrimSpace(r.md[key])
}

// Fail refuses the key's value for reason.
func (r *Reader) Fail(key, reason string) {
	r.errs = append(r.errs, &MetadataError{key, r.md[key], reason})
}

// Refuse keeps err among the problems found.
func (r *Reader) Refuse(err error) { r.errs = append(r.errs, err) }

// String is the key's trimmed value, or def when it is absent or blank.
func (r *Reader) String(key, def string) string {
	if v := r.value(key); v != "" {
		return v
	}
	return def
}

// Float is the key's number, or def.
func (r *Reader) Float(key string, def float64) float64 {
	v := r.value(key)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		r.Fail(key, "not a number")
		return def
	}
	return f
}

// Bool is the key's true or false, or def.
func (r *Reader) Bool(key string, def bool) bool {
	v := r.value(key)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.Fail(key, "must be true or false")
		return def
	}
	return b
}

// Int is the key's integer in [lo, hi], or def.
func (r *Reader) Int(key string, def, lo, hi int) int {
	v := r.value(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.Fail(key, "not an integer")
		return def
	}
	if n < lo || n > hi {
		r.Fail(key, fmt.Sprintf("must be in [%d, %d]", lo, hi))
		return def
	}
	return n
}

// Duration is the key's Go duration in [lo, hi], or def.
func (r *Reader) Duration(key string, def, lo, hi time.Duration) time.Duration {
	v := r.value(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		r.Fail(key, "not a duration such as 15s or 1m")
		return def
	}
	if d < lo || d > hi {
		r.Fail(key, fmt.Sprintf("must be in [%s, %s]", lo, hi))
		return def
	}
	return d
}

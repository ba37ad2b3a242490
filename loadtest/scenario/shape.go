package scenario

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
)

// checkShape reports every value of a decoded JSON document that cannot
// decode into t: a field t does not have (with the known one nearest in
// spelling), a value of the wrong kind, a duration that does not parse.
// Each error names the field's path and its value, so a file's author fixes
// them all in one edit; encoding/json would stop at the first, without
// its path.
func checkShape(doc any, t reflect.Type, path string) []error {
	if doc == nil {
		return nil // null decodes to the zero value of any type
	}
	if t == durationType {
		return checkDuration(doc, path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return checkShape(doc, t.Elem(), path)
	case reflect.Struct:
		return checkObject(doc, jsonFields(t), path)
	case reflect.Map:
		obj, ok := doc.(map[string]any)
		if !ok {
			return []error{wrongKind(path, doc, "an object")}
		}
		var errs []error
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			errs = append(errs, checkShape(obj[k], t.Elem(), joinPath(path, k))...)
		}
		return errs
	case reflect.Slice:
		list, ok := doc.([]any)
		if !ok {
			return []error{wrongKind(path, doc, "a list")}
		}
		var errs []error
		for i, v := range list {
			errs = append(errs, checkShape(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return errs
	case reflect.String:
		if _, ok := doc.(string); !ok {
			return []error{wrongKind(path, doc, "a string")}
		}
	case reflect.Bool:
		if _, ok := doc.(bool); !ok {
			return []error{wrongKind(path, doc, "true or false")}
		}
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		if f, ok := doc.(float64); !ok || f != math.Trunc(f) {
			return []error{wrongKind(path, doc, "a whole number")}
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := doc.(float64); !ok {
			return []error{wrongKind(path, doc, "a number")}
		}
	}
	return nil
}

var durationType = reflect.TypeFor[Duration]()

func checkDuration(doc any, path string) []error {
	s, ok := doc.(string)
	if !ok {
		return []error{wrongKind(path, doc, `a duration string such as "15s" or "5ms"`)}
	}
	if _, err := time.ParseDuration(s); err != nil {
		return []error{bad(path, s, `not a duration such as "15s" or "5ms"`)}
	}
	return nil
}

// checkObject checks an object against a struct's JSON fields.
func checkObject(doc any, fields map[string]reflect.Type, path string) []error {
	obj, ok := doc.(map[string]any)
	if !ok {
		return []error{wrongKind(path, doc, "an object")}
	}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		p := joinPath(path, k)
		ft, known := fields[k]
		if !known {
			reason := "unknown field; see docs/scenarios.md"
			if near := nearest(k, slices.Collect(maps.Keys(fields))); near != "" {
				reason = fmt.Sprintf("unknown field; did you mean %q?", near)
			}
			errs = append(errs, bad(p, "(present)", reason))
			continue
		}
		errs = append(errs, checkShape(obj[k], ft, p)...)
	}
	return errs
}

// jsonFields are a struct's fields by their JSON names, as encoding/json
// decodes them.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := make(map[string]reflect.Type, t.NumField())
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func wrongKind(path string, v any, want string) error {
	return bad(path, show(v), "wrong type, want "+want)
}

// show is a value as the file wrote it, shortened.
func show(v any) string {
	switch v.(type) {
	case map[string]any:
		return "(an object)"
	case []any:
		return "(a list)"
	}
	return fmt.Sprint(v)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// nearest is the candidate within two edits of s, the closest first (ties
// by name), or "" when none is that near: a misspelling, not another
// field.
func nearest(s string, candidates []string) string {
	slices.Sort(candidates)
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

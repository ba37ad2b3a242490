// Package promvector reads Prometheus' answer to an instant query (the HTTP
// API's JSON) into the few labels and the value each sample needs, without
// the label map per sample that the general client builds. artt-traffic's
// collection answers a fleet's 250,000 node-pair delays and 40,000 pod
// series every cycle, and building and collecting those maps was most of
// its CPU.
package promvector

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode reads an instant-vector answer and calls each once per sample
// with the values of the wanted labels (in their order, "" for a label the
// sample lacks) and the sample's value. The strings passed to each are its
// to keep. An answer whose status is not "success", or whose result is not
// a vector, is an error that says so; malformed JSON is an error with its
// offset.
func Decode(body []byte, wanted []string, each func(labels []string, value float64)) error {
	d := decoder{b: body}
	status, errType, errMsg, resultType := "", "", "", ""
	sawResult := false
	// Member names match regardless of case, as encoding/json matches them
	// for the general client.
	err := d.object(func(key []byte) error {
		switch {
		case is(key, "status"):
			return d.stringInto(&status)
		case is(key, "errorType"):
			return d.stringInto(&errType)
		case is(key, "error"):
			return d.stringInto(&errMsg)
		case is(key, "data"):
			return d.object(func(key []byte) error {
				switch {
				case is(key, "resultType"):
					if err := d.stringInto(&resultType); err != nil {
						return err
					}
					if resultType != "vector" {
						return fmt.Errorf("the answer is a %s, not an instant vector", resultType)
					}
					return nil
				case is(key, "result"):
					if sawResult {
						return d.fail("a second result")
					}
					sawResult = true
					return d.samples(wanted, each)
				}
				return d.skip()
			})
		}
		return d.skip()
	})
	if err != nil {
		return err
	}
	d.space()
	if d.i != len(d.b) {
		return d.fail("data after the answer")
	}
	switch {
	case status != "success":
		if errType == "" && errMsg == "" {
			return fmt.Errorf("prometheus answered status %q", status)
		}
		return fmt.Errorf("prometheus answered %s: %s", errType, errMsg)
	case !sawResult:
		return errors.New("the answer has no result")
	case resultType == "":
		return errors.New("the answer does not say its result type")
	}
	return nil
}

func is(key []byte, name string) bool { return bytes.EqualFold(key, []byte(name)) }

// decoder scans a JSON document; i is the next byte to read.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) fail(what string) error {
	return fmt.Errorf("malformed answer at byte %d: %s", d.i, what)
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume skips white space and reads c, or fails.
func (d *decoder) consume(c byte) error {
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != c {
		return d.fail(fmt.Sprintf("want %q", c))
	}
	d.i++
	return nil
}

// peek skips white space and returns the next byte (0 at the end).
func (d *decoder) peek() byte {
	d.space()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// object reads an object, calling member with each key; member must read
// the value.
func (d *decoder) object(member func(key []byte) error) error {
	return d.list('{', '}', func(int) error {
		key, err := d.str()
		if err != nil {
			return err
		}
		if err := d.consume(':'); err != nil {
			return err
		}
		return member(key)
	})
}

// array reads an array, calling element for each; element must read it.
func (d *decoder) array(element func(n int) error) error {
	return d.list('[', ']', element)
}

// list reads open, items separated by commas, and close, calling item for
// each; item must read it.
func (d *decoder) list(open, close byte, item func(n int) error) error {
	if err := d.consume(open); err != nil {
		return err
	}
	if d.peek() == close {
		d.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := item(n); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case close:
			d.i++
			return nil
		default:
			return d.fail(fmt.Sprintf("want ',' or '%c'", close))
		}
	}
}

// samples reads the result array.
func (d *decoder) samples(wanted []string, each func([]string, float64)) error {
	return d.array(func(int) error {
		labels := make([]string, len(wanted))
		value, sawValue := 0.0, false
		err := d.object(func(key []byte) error {
			switch {
			case is(key, "metric"):
				return d.object(func(name []byte) error {
					for k, w := range wanted {
						if string(name) == w {
							return d.stringInto(&labels[k])
						}
					}
					return d.skipString()
				})
			case is(key, "value"):
				sawValue = true
				return d.array(func(n int) error {
					switch n {
					case 0:
						return d.number()
					case 1:
						var s []byte
						var err error
						if s, err = d.str(); err != nil {
							return err
						}
						if value, err = strconv.ParseFloat(string(s), 64); err != nil {
							return d.fail(fmt.Sprintf("sample value %q is not a number", s))
						}
						return nil
					}
					return d.fail("a sample's value has two elements")
				})
			case is(key, "histogram"):
				return d.fail("a native histogram sample; the query must return floats")
			}
			return d.skip()
		})
		if err != nil {
			return err
		}
		if !sawValue {
			return d.fail("a sample without a value")
		}
		each(labels, value)
		return nil
	})
}

// str reads a string and returns its contents, unescaped. Without escapes
// the bytes are the document's own.
func (d *decoder) str() ([]byte, error) {
	if err := d.consume('"'); err != nil {
		return nil, err
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], nil
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return nil, d.fail("control character in a string")
		}
		d.i++
	}
	return nil, d.fail("unterminated string")
}

// escaped finishes a string with escapes, from its start.
func (d *decoder) escaped(start int) ([]byte, error) {
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return out, nil
		case c < 0x20:
			return nil, d.fail("control character in a string")
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			break
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, d.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A pair encodes one rune; a lone half is U+FFFD, as
				// encoding/json reads it.
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					if r2, ok := d.hex4(); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							out = utf8.AppendRune(out, pair)
							continue
						}
					}
					d.i = save
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, d.fail(fmt.Sprintf("bad escape \\%c", e))
		}
	}
	return nil, d.fail("unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(v), true
}

func (d *decoder) stringInto(dst *string) error {
	s, err := d.str()
	if err != nil {
		return err
	}
	*dst = string(s)
	return nil
}

func (d *decoder) skipString() error {
	_, err := d.str()
	return err
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() error {
	d.space()
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	bad := func() error {
		d.i = start
		return d.fail("want a number")
	}
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case digits() == 0:
		return bad()
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return bad()
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return bad()
		}
	}
	return nil
}

// skip reads any value.
func (d *decoder) skip() error {
	switch c := d.peek(); {
	case c == '{':
		return d.object(func([]byte) error { return d.skip() })
	case c == '[':
		return d.array(func(int) error { return d.skip() })
	case c == '"':
		return d.skipString()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	default:
		return d.number()
	}
}

func (d *decoder) literal(word string) error {
	if d.i+len(word) > len(d.b) || string(d.b[d.i:d.i+len(word)]) != word {
		return d.fail("want " + word)
	}
	d.i += len(word)
	return nil
}

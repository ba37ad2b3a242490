// Package fielderr is the one error type ARTT's packages use for bad input:
// it names the field, the value and why the value is refused.
package fielderr

import "fmt"

// Error is bad input in one field.
type Error struct {
	Field  string
	Value  any
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s = %v: %s", e.Field, e.Value, e.Reason)
}

package fielderr

import (
	"errors"
	"fmt"
	"testing"
)

func TestError(t *testing.T) {
	err := fmt.Errorf("load: %w", &Error{Field: "runs[0].routing", Value: "fastest", Reason: "unknown policy"})
	if got, want := err.Error(), "load: runs[0].routing = fastest: unknown policy"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var fe *Error
	if !errors.As(err, &fe) || fe.Field != "runs[0].routing" {
		t.Errorf("errors.As lost the field: %v", fe)
	}
}

package version

import (
	"strings"
	"testing"
)

func TestStringNamesCommandVersionAndToolchain(t *testing.T) {
	Version = "v1.2.3"
	defer func() { Version = "" }()
	got := String("artt-scaler")
	if !strings.HasPrefix(got, "artt-scaler v1.2.3 (go") || !strings.Contains(got, "/") {
		t.Errorf("String = %q", got)
	}
	Version = ""
	if got := String("x"); !strings.HasPrefix(got, "x devel (") && !strings.HasPrefix(got, "x v") {
		t.Errorf("without a linked version: %q", got)
	}
}

package problem

import (
	"strings"
	"testing"
)

func TestPrintSaysOKOnlyWithoutProblemsAndBlocksOnAnError(t *testing.T) {
	cases := []struct {
		name     string
		problems []Problem
		want     string
		blocking bool
	}{
		{"none", nil, "ok: all set\n", false},
		{"a warning", []Problem{{Object: "service a/b", Wrong: "w", Remedy: "r"}}, "warning: service a/b: w; r\n", false},
		{"an error after a warning", []Problem{{Object: "o1", Wrong: "w1", Remedy: "r1"}, {Object: "o2", Wrong: "w2", Remedy: "r2", Blocking: true}},
			"warning: o1: w1; r1\nerror: o2: w2; r2\n", true},
	}
	for _, c := range cases {
		var b strings.Builder
		if got := Print(&b, c.problems, "all set"); got != c.blocking {
			t.Errorf("%s: blocking = %v, want %v", c.name, got, c.blocking)
		}
		if b.String() != c.want {
			t.Errorf("%s: printed %q, want %q", c.name, b.String(), c.want)
		}
	}
}

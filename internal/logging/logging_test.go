package logging

import (
	"bytes"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	var b bytes.Buffer
	log, err := New(&b, "warn", "json")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hidden")
	log.Warn("shown", "k", 1)
	if out := b.String(); strings.Contains(out, "hidden") || !strings.Contains(out, `"msg":"shown"`) {
		t.Errorf("output %q: want only the warning, as JSON", out)
	}
	for _, c := range []struct{ level, format, says string }{
		{"loud", "json", "--log-level"},
		{"info", "xml", "--log-format"},
	} {
		if _, err := New(&b, c.level, c.format); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("New(%q, %q) error %v, want one naming %s", c.level, c.format, err, c.says)
		}
	}
}

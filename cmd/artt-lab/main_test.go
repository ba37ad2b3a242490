package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"list"}, &out, &errOut); err != nil || !strings.Contains(out.String(), "heart-pairwise") {
		t.Errorf("list: %v\n%s", err, out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nduration: 1m\nrunz: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"validate", bad}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "runz") {
		t.Errorf("validate of a bad file: error %v, want one naming the field runz", err)
	}
	if err := run([]string{"frobnicate"}, &out, &errOut); err == nil {
		t.Error("unknown command accepted")
	}
	dir := t.TempDir()
	out.Reset()
	if err := run([]string{"run", "--quiet", "--no-plots", "--out", dir, "--policies", "heart", "demo"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.md", "report.csv", "report.json"} {
		if _, err := os.Stat(filepath.Join(dir, "demo", f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "| heart |") || strings.Contains(out.String(), "| kubernetes |") {
		t.Errorf("--policies heart printed:\n%s", out.String())
	}
}

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
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

func TestThresholdProfilesTheShippedTrace(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"threshold", "--rows", "1500", "--every", "50", "--set", "maxThreshold=90"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"| artt | maxThreshold=90 |", "| lare | maxThreshold=90 |", "(1500 rows from 0, a poll every 50 rows)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"threshold", "--rows", "100"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "window + history") {
		t.Errorf("a trace shorter than one poll: %v", err)
	}
	if err := run([]string{"threshold", "--set", "window"}, &out, &errOut); err == nil {
		t.Error("--set without a value accepted")
	}
}

func TestImportFlagsAreChecked(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run([]string{"import", "--until", "yesterday"}, &out, &errOut)
	for _, want := range []string{"--prometheus is required", `--until = "yesterday"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("import with bad flags: error %v, want it to say %q", err, want)
		}
	}
	err = run([]string{"import", "--prometheus", "http://127.0.0.1:1", "--namespace", "shop", "--step", "1s"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--step = 1s") {
		t.Errorf("import with a 1s step: error %v", err)
	}
}

// Flags may follow the scenario names, as the README writes them, and every
// name is checked before any scenario runs.
func TestRunTakesFlagsAfterNames(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"run", "heart-pairwise", "--seed", "2", "--policies", "least-request", "--no-plots", "--quiet", "--out", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	report, err := os.ReadFile(filepath.Join(out, "heart-pairwise", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "(seed 2)") || strings.Contains(string(report), "| kubernetes |") {
		t.Errorf("the flags after the name were not applied: report\n%s", report)
	}
	second := t.TempDir()
	err = run([]string{"run", "heart-pairwise", "no-such-scenario", "--quiet", "--out", second}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no-such-scenario") {
		t.Fatalf("a misspelt second name: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(second, "heart-pairwise")); err == nil {
		t.Errorf("heart-pairwise ran before the misspelt name was refused")
	}
}

func TestParseInterspersed(t *testing.T) {
	fs, opts := runFlags(io.Discard)
	got, err := parseInterspersed(fs, []string{"a", "--seed", "7", "b", "--quiet", "--", "--out", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "--out", "c"}; !slices.Equal(got, want) || opts.seed != 7 || !opts.quiet || opts.out != "out" {
		t.Errorf("positional %q, seed %d, quiet %v, out %q; want %q, 7, true, out", got, opts.seed, opts.quiet, opts.out, want)
	}
}

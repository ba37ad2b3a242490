package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/artt-dev/artt/loadtest"
)

// failure is a scenario that did not load, check or run.
type failure struct {
	name string
	err  error
}

// checked is a scenario that loaded and passed loadtest.Check.
type checked struct {
	name string
	l    loadtest.Loaded
}

// loadAndCheck loads and checks every scenario named, reporting each
// failure to stderr as it is found, so that one bad name is known before
// the valid scenarios run for minutes.
func loadAndCheck(names []string, traceDir string, stderr io.Writer) ([]checked, []failure) {
	var good []checked
	var bad []failure
	for _, name := range names {
		l, err := loadtest.Load(name)
		if err == nil {
			err = loadtest.Check(l, traceDir)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			bad = append(bad, failure{name, err})
			continue
		}
		good = append(good, checked{name, l})
	}
	return good, bad
}

// failed is nil when nothing failed, else one error naming every failed
// scenario and why.
func failed(bad []failure, total int) error {
	if len(bad) == 0 {
		return nil
	}
	lines := make([]string, len(bad))
	for i, f := range bad {
		lines[i] = fmt.Sprintf("%s: %v", f.name, f.err)
	}
	return fmt.Errorf("%d of %d scenarios failed:\n  %s", len(bad), total, strings.Join(lines, "\n  "))
}

// validateScenarios checks every file named as run would, without running
// it, and says "ok" for each that would run.
func validateScenarios(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	traceDir := fs.String("trace-dir", "", "directory searched for trace files a scenario names")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return errors.New("validate: name at least one scenario file")
	}
	good, bad := loadAndCheck(names, *traceDir, stderr)
	for _, c := range good {
		fmt.Fprintf(stdout, "%s: ok\n", c.name)
	}
	return failed(bad, len(names))
}

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

// loadAndCheck loads and checks every scenario named. With early set, it
// reports each failure there as it is found, so that one bad name is known
// before the valid scenarios run for minutes (run); validate has nothing to
// run, and reports them once, together.
func loadAndCheck(names []string, traceDir string, early io.Writer) ([]checked, []failure) {
	var good []checked
	var bad []failure
	for _, name := range names {
		l, err := loadtest.Load(name) // its errors name the scenario
		if err == nil {
			if err = loadtest.Check(l, traceDir); err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
		}
		if err != nil {
			if early != nil {
				fmt.Fprintln(early, indentLines(err.Error(), "  "))
			}
			bad = append(bad, failure{name, err})
			continue
		}
		good = append(good, checked{name, l})
	}
	return good, bad
}

// failed is nil when nothing failed, else one error naming every failed
// scenario and why, each of its problems on a line of its own.
func failed(bad []failure, total int) error {
	if len(bad) == 0 {
		return nil
	}
	lines := make([]string, len(bad))
	for i, f := range bad {
		lines[i] = indentLines(f.err.Error(), "    ")
	}
	return fmt.Errorf("%d of %d scenarios failed:\n  %s", len(bad), total, strings.Join(lines, "\n  "))
}

// indentLines indents every line of a multi-line error but the first by
// indent, so each of a file's problems reads as one line under its name.
func indentLines(s, indent string) string { return strings.ReplaceAll(s, "\n", "\n"+indent) }

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
	good, bad := loadAndCheck(names, *traceDir, nil)
	for _, c := range good {
		fmt.Fprintf(stdout, "%s: ok\n", c.name)
	}
	return failed(bad, len(names))
}

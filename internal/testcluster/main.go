package testcluster

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/artt-dev/artt/internal/promtest"
)

// Need is a component a test package needs, located by an environment
// variable.
type Need struct {
	// Env names the variable; Hint says how to set it.
	Env, Hint string
	// AskedFor marks the variable whose absence means the package was not
	// asked to run (make test leaves make e2e's unset): its tests then
	// skip even where components are required.
	AskedFor bool
}

// Main is a test package's TestMain against one cluster shared by its
// tests: with a need (or Prometheus) missing the tests skip, or fail where
// components are required; otherwise Start brings the cluster up in a
// fresh work directory, kept with the components' logs when a test fails.
type Main struct {
	// Name names the work directory and the messages.
	Name  string
	Needs []Need
	// Start brings the cluster up; stop is called after the tests, also
	// when Start failed.
	Start func(ctx context.Context, work string) (stop func(), err error)
	// SkipWhy is why the tests skip, "" when the cluster runs.
	SkipWhy string
}

// Run runs m's tests and returns the exit code.
func (h *Main) Run(m *testing.M) int {
	required := promtest.Required()
	for _, n := range h.Needs {
		if os.Getenv(n.Env) == "" {
			h.SkipWhy = n.Env + " is not set (" + n.Hint + ")"
			required = required && !n.AskedFor
			break
		}
	}
	if _, err := promtest.Binary(); err != nil && h.SkipWhy == "" {
		h.SkipWhy = err.Error()
	}
	if h.SkipWhy != "" {
		if required {
			fmt.Fprintf(os.Stderr, "%s: components required but missing: %s\n", h.Name, h.SkipWhy)
			return 1
		}
		return m.Run()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	work, err := os.MkdirTemp("", "artt-"+h.Name+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stop, err := h.Start(ctx, work)
	defer stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the cluster:", err, "(logs in", work+")")
		return 1
	}
	return RunKeepingLogs(m, work)
}

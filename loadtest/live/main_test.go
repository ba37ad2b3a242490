package live_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/loadtest/live"
)

// skipWhy says why the live tests cannot run here ("" when they can).
var skipWhy string

// TestMain plays the parts the harness starts as processes of this binary
// (RoleEnv), and otherwise runs the tests again inside a network namespace
// of their own, where the harness may add pod addresses.
func TestMain(m *testing.M) {
	if role := os.Getenv(live.RoleEnv); role != "" {
		os.Exit(live.RunRole(role, os.Args[1:]))
	}
	switch {
	case os.Geteuid() != 0:
		skipWhy = "not root: the live loop makes a network namespace and cgroups"
	case live.CheckCgroups() != nil:
		skipWhy = live.CheckCgroups().Error()
	case live.AssetsFromEnv().Check() != nil:
		skipWhy = live.AssetsFromEnv().Check().Error()
	}
	if skipWhy != "" {
		if promtest.Required() {
			fmt.Fprintln(os.Stderr, "live test components required but missing:", skipWhy)
			os.Exit(1)
		}
		os.Exit(m.Run())
	}
	if !live.InNamespace() {
		code, err := live.ReexecInNamespace()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func needLive(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip("live loop components missing: " + skipWhy)
	}
}

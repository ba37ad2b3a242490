package live

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A neighbour's threads burn in the node's cgroup while it runs and are
// all out of it once Stop returns, so the node's cgroup can be removed:
// run with more threads than cores, one of them is likely the test
// binary's main thread, which Go parks rather than ends.
func TestNeighbourLeavesTheNodesCgroup(t *testing.T) {
	if err := CheckCgroups(); err != nil {
		t.Skip(err)
	}
	c, err := NewCgroups(fmt.Sprintf("artt-neighbour-test-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddNode("n1", 1); err != nil {
		t.Fatal(err)
	}
	n, err := c.StartNeighbour("n1", 6)
	if err != nil {
		t.Fatal(errors.Join(err, c.Remove()))
	}
	tasks := filepath.Join(c.cpuDir("n1", ""), "tasks")
	time.Sleep(200 * time.Millisecond)
	if got := countLines(t, tasks); got != 6 {
		t.Errorf("while running: %d threads in %s, want 6", got, tasks)
	}
	if err := n.Stop(); err != nil {
		t.Error(err)
	}
	if got := countLines(t, tasks); got != 0 {
		t.Errorf("after Stop: %d threads in %s, want none", got, tasks)
	}
	if err := c.Remove(); err != nil {
		t.Errorf("removing the cgroups after Stop: %v", err)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.Fields(string(b)))
}

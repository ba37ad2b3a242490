package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/artt-dev/artt/internal/promtest"
)

// The cgroup v1 hierarchies the tests make cgroups in.
const (
	cpuRoot     = "/sys/fs/cgroup/cpu"
	cpuacctRoot = "/sys/fs/cgroup/cpuacct"
)

// The pod's CPU workers spend the requests' work in the pod's cgroup, and
// the rest of the process, which joined the server's, is counted there:
// the pod's counter is its work alone.
func TestWorkersSpendInThePodsCgroup(t *testing.T) {
	if err := CheckClock(); err != nil {
		t.Skip(err)
	}
	work, server := testCgroup(t, cpuacctRoot, "work"), testCgroup(t, cpuacctRoot, "server")
	c := Cgroups{Work: []string{work}, Server: []string{server}}
	if err := c.joinProcess(); err != nil {
		t.Fatal(err)
	}
	var progress atomic.Int64
	p, err := newProcessor(1, &progress, c.joinThread)
	if err != nil {
		t.Fatal(err)
	}
	p.Spend(60 * time.Millisecond)
	Burn(40*time.Millisecond, nil) // the server's own CPU, on this goroutine's thread
	p.Close()
	workCPU, serverCPU := usage(t, work), usage(t, server)
	t.Logf("60 ms of work and 40 ms beside it: the work's cgroup counted %.1f ms, the server's %.1f ms", 1000*workCPU, 1000*serverCPU)
	if workCPU < 0.060 || workCPU > 0.070 {
		t.Errorf("the work's cgroup counted %.1f ms for 60 ms of work", 1000*workCPU)
	}
	if serverCPU < 0.040 {
		t.Errorf("the server's cgroup counted %.1f ms, less than the 40 ms burned beside the work", 1000*serverCPU)
	}
}

// testCgroup makes a cgroup for the test under root (a v1 hierarchy), and
// at its end moves the process, and any thread left behind, back where
// they were and removes the cgroup once its threads left.
func testCgroup(t *testing.T, root, name string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOrFail(t, "not root: the test makes cgroups")
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
		skipOrFail(t, fmt.Sprintf("no cgroup v1 controller at %s: %v", root, err))
	}
	home, err := ownCgroup(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, fmt.Sprintf("artt-backend-test-%d-%s", os.Getpid(), name))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.WriteFile(filepath.Join(home, "cgroup.procs"), []byte(fmt.Sprint(os.Getpid())), 0o644)
		if tids, err := readTasks(filepath.Join(dir, "tasks")); err == nil {
			for _, tid := range tids {
				_ = os.WriteFile(filepath.Join(home, "tasks"), []byte(fmt.Sprint(tid)), 0o644)
			}
		}
		// The workers' threads end a moment after Close.
		for range 100 {
			if err = os.Remove(dir); err == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("remove %s: %v", dir, err)
	})
	return dir
}

func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if promtest.Required() {
		t.Fatal(why)
	}
	t.Skip(why)
}

// ownCgroup is this process's cgroup directory in the hierarchy at root.
func ownCgroup(root string) (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	controller := filepath.Base(root)
	for _, line := range strings.Split(string(b), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 && parts[1] == controller {
			return filepath.Join(root, parts[2]), nil
		}
	}
	return "", fmt.Errorf("/proc/self/cgroup names no %s cgroup", controller)
}

func usage(t *testing.T, dir string) float64 {
	t.Helper()
	v, err := ReadCPUAcct(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

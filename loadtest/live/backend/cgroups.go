package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Cgroups are where a pod's threads go (cgroup v1, one directory per
// hierarchy): Work for the threads that spend its requests' work, under
// the pod's quota and counted as its CPU; Server for every other thread of
// the process, beside them, outside every quota (why: package live's
// Cgroups). Empty: the threads stay where the process was started.
type Cgroups struct {
	Work, Server []string
}

// joinProcess moves every thread of this process into the server's
// cgroups. Threads started later inherit them, the workers' included,
// until each worker moves itself (joinThread).
func (c Cgroups) joinProcess() error {
	return join(c.Server, "cgroup.procs", os.Getpid())
}

// joinThread moves the calling thread, locked to its goroutine, into the
// work's cgroups. The Go runtime starts no thread from a locked one (it
// asks its template thread), so nothing else follows it there.
func (c Cgroups) joinThread() error {
	return join(c.Work, "tasks", unix.Gettid())
}

func join(dirs []string, file string, id int) error {
	for _, dir := range dirs {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.Itoa(id)), 0o644); err != nil {
			return fmt.Errorf("join cgroup %s: %w", dir, err)
		}
	}
	return nil
}

package live

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/artt-dev/artt/loadtest/live/backend"
)

// Neighbour is a process outside the application keeping threads busy on
// a node, as a batch job with no limit does on a cluster's node: threads
// of the harness's own, each in the node's cgroup beside the pods' (not in
// any of theirs), burning CPU until stopped. CFS then shares the node's
// quota between each of them and each pod's cgroup alike, and the pods
// get less CPU while each request's CPU stays the same.
type Neighbour struct {
	stop chan struct{}
	done sync.WaitGroup
}

// StartNeighbour starts threads busy threads in a node's cgroup.
func (c *Cgroups) StartNeighbour(node string, threads int) (*Neighbour, error) {
	if threads < 1 {
		return nil, fmt.Errorf("neighbour on %s: %d threads, want at least one", node, threads)
	}
	if _, ok := c.nodes[node]; !ok {
		return nil, fmt.Errorf("neighbour on %s: no such node", node)
	}
	n := &Neighbour{stop: make(chan struct{})}
	joined := make(chan error, threads)
	tasks := filepath.Join(c.cpuDir(node, ""), "tasks")
	for range threads {
		n.done.Add(1)
		go func() {
			defer n.done.Done()
			// Locked and never unlocked: the thread ends with the
			// goroutine, and no other goroutine runs in the node's cgroup.
			runtime.LockOSThread()
			err := os.WriteFile(tasks, []byte(strconv.Itoa(unix.Gettid())), 0o644)
			joined <- err
			if err != nil {
				return
			}
			for {
				select {
				case <-n.stop:
					return
				default:
					backend.Burn(time.Millisecond, nil)
				}
			}
		}()
	}
	for range threads {
		if err := <-joined; err != nil {
			n.Stop()
			return nil, fmt.Errorf("neighbour on %s: join %s: %w", node, tasks, err)
		}
	}
	return n, nil
}

// Stop stops the neighbour's threads and waits for them.
func (n *Neighbour) Stop() {
	close(n.stop)
	n.done.Wait()
}

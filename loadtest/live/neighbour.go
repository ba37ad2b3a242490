package live

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
	errs chan error
}

// StartNeighbour starts threads busy threads in a node's cgroup.
func (c *Cgroups) StartNeighbour(node string, threads int) (*Neighbour, error) {
	if threads < 1 {
		return nil, fmt.Errorf("neighbour on %s: %d threads, want at least one", node, threads)
	}
	if _, ok := c.nodes[node]; !ok {
		return nil, fmt.Errorf("neighbour on %s: no such node", node)
	}
	n := &Neighbour{stop: make(chan struct{}), errs: make(chan error, threads)}
	joined := make(chan error, threads)
	tasks := filepath.Join(c.cpuDir(node, ""), "tasks")
	for range threads {
		n.done.Add(1)
		go func() {
			defer n.done.Done()
			n.errs <- burnIn(tasks, joined, n.stop)
		}()
	}
	for range threads {
		if err := <-joined; err != nil {
			return nil, errors.Join(fmt.Errorf("neighbour on %s: join %s: %w", node, tasks, err), n.Stop())
		}
	}
	return n, nil
}

// burnIn moves the calling goroutine's thread into the cgroup whose tasks
// file is given, reports on joined, burns CPU until stop closes, and moves
// the thread back where it came from before releasing it. A locked thread
// is not enough to take it out: when the goroutine on the process's main
// thread exits locked, Go parks that thread rather than ending it, and it
// would stay in the node's cgroup, which then cannot be removed.
func burnIn(tasks string, joined chan<- error, stop <-chan struct{}) error {
	runtime.LockOSThread()
	home, err := threadCPUCgroup()
	if err == nil {
		err = writeTID(tasks)
	}
	joined <- err
	if err != nil {
		runtime.UnlockOSThread()
		return nil
	}
	for {
		select {
		case <-stop:
			if err := writeTID(filepath.Join(cpuRoot, home, "tasks")); err != nil {
				// Kept locked: the thread ends with the goroutine, unless it
				// is the main thread, which the error then explains.
				return fmt.Errorf("neighbour thread back to cgroup %s: %w", home, err)
			}
			runtime.UnlockOSThread()
			return nil
		default:
			backend.Burn(time.Millisecond, nil)
		}
	}
}

// Stop stops the neighbour's threads, waits until each has left the
// node's cgroup, and reports any that could not.
func (n *Neighbour) Stop() error {
	close(n.stop)
	n.done.Wait()
	close(n.errs)
	var errs []error
	for err := range n.errs {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func writeTID(tasks string) error {
	return os.WriteFile(tasks, []byte(strconv.Itoa(unix.Gettid())), 0o644)
}

// threadCPUCgroup is the calling thread's cgroup in the cpu hierarchy, as
// a path under its root.
func threadCPUCgroup() (string, error) {
	f, err := os.Open("/proc/thread-self/cgroup")
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "cpu") {
			return parts[2], nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", errors.New("/proc/thread-self/cgroup: no cpu controller")
}

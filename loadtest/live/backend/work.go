package backend

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// sink keeps the busy loop's arithmetic from being optimised away.
var sink uint64

// Burn spends d of this thread's CPU time and returns what it spent,
// adding it to progress (when not nil) as it goes, so a reader of progress
// counts the work of requests still burning, not only of those done. The goroutine is locked to its
// thread, and the thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID) is
// read, so time spent throttled by the cgroup's quota or preempted by
// another request does not count: the request gets exactly d of CPU, as a
// request with that much work would, however long that takes on the wall.
func Burn(d time.Duration, progress *atomic.Int64) time.Duration {
	if d <= 0 {
		return 0
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	x := sink | 1
	spent := time.Duration(0)
	for spent < d {
		for range 2000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now := threadCPU() - start
		if progress != nil {
			progress.Add(int64(now - spent))
		}
		spent = now
	}
	sink = x
	return spent
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) // checked once by CheckClock
	return time.Duration(ts.Nano())
}

// CheckClock reports whether this kernel gives threads a CPU clock, which
// Burn needs.
func CheckClock() error {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return fmt.Errorf("CLOCK_THREAD_CPUTIME_ID: %w", err)
	}
	return nil
}

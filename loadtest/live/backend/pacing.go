package backend

import (
	"errors"
	"math"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// pacer holds a pod of a fraction of a core to its limit at every turn of
// its workers, so its requests progress at the limit's rate throughout,
// as processor sharing at the limit (the lab's model of a pod) has them.
//
// The pod's cgroup quota alone does not: below a core the kernel's
// smallest quota, 1 ms, sets a long period (16 ms for a sixteenth of a
// core), and a request runs each quota at full speed and then waits out
// the period. A lone request of 4 ms took 42 ms on average that way, where
// the limit's rate takes 64: the scaled-down pod answered a third sooner
// than the pod of a whole core it stands for, whose request runs at full
// speed throughout. Paced, each turn waits until the limit has earned it,
// and the quota stays in force beneath.
type pacer struct {
	mu    sync.Mutex
	limit float64 // cores
	// paid is the monotonic time by which the limit has earned everything
	// the pod has spent. While the pod's workers are all busy it only
	// grows, so a turn that woke late is made up by the next ones, as the
	// limit went on earning meanwhile; when a request finds a worker idle,
	// paid catches up with the present (resume): capacity the pod had no
	// request for is lost, as processor sharing loses it.
	paid time.Duration
}

// newPacer paces a pod of limit cores; nil when the limit is whole, which
// its workers (one per core) cannot exceed.
func newPacer(limit float64) *pacer {
	if limit == math.Ceil(limit) {
		return nil
	}
	return &pacer{limit: limit}
}

// resume is told, at now, that a request found one of the pod's workers
// idle.
func (p *pacer) resume(now time.Duration) {
	p.mu.Lock()
	p.paid = max(p.paid, now)
	p.mu.Unlock()
}

// take reserves a turn of d and blocks the calling thread until it may
// start.
func (p *pacer) take(d time.Duration) {
	sleepUntil(p.reserve(d))
}

// reserve books a turn of d and returns when it starts: run at full
// speed, it ends when the limit has earned it, so a lone request ends when
// processor sharing at the limit would end it. A start already past means
// at once.
func (p *pacer) reserve(d time.Duration) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paid += p.wall(d)
	return p.paid - d
}

// settle charges a turn reserved as reserved but spent as spent (a turn
// overruns its reservation by a check of the thread's clock).
func (p *pacer) settle(reserved, spent time.Duration) {
	p.mu.Lock()
	p.paid += p.wall(spent - reserved)
	p.mu.Unlock()
}

// wall is how long the limit takes to earn cpu.
func (p *pacer) wall(cpu time.Duration) time.Duration {
	return time.Duration(float64(cpu) / p.limit)
}

// monotonic is CLOCK_MONOTONIC, the clock sleepUntil waits on.
func monotonic() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}

// sleepUntil blocks the calling thread until the monotonic clock reads t.
// The kernel's high-resolution timer wakes it within tens of microseconds,
// where the Go runtime's timers round a wait to a millisecond, as long as
// a turn's wait at a sixth of a core.
func sleepUntil(t time.Duration) {
	ts := unix.NsecToTimespec(int64(t))
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

package backend

import (
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// processor shares a pod's CPU among its requests in flight by processor
// sharing, the lab's model of a pod: a few worker threads spend every
// request's work in turns of at most quantum, round robin, so n requests
// in flight each progress at 1/n of the pod's CPU, and nothing else in the
// pod waits behind them.
//
// Each request used to burn its work on a thread of its own, leaving the
// sharing to Go's scheduler. Under overload hundreds of burning goroutines
// were runnable, each running its 10 ms slice in turn within a sixth of a
// core: anything else the pod had to run (a new request's handler, an
// answer to a caller, Prometheus' scrape) waited seconds behind them. An
// overloaded pod's scrapes timed out, so its series went missing just when
// it was busiest, which no real pod shows: a sidecar and the kubelet's
// cAdvisor serve its metrics from outside its container.
type processor struct {
	mu       sync.Mutex
	ready    *sync.Cond
	turns    []*job // round robin: the front runs next
	closed   bool
	progress *atomic.Int64
	pace     *pacer // nil for a whole number of cores
	// workers is how many threads spend the work; jobs the requests
	// holding one or waiting for one.
	workers, jobs int
}

// job is one request's work still to spend.
type job struct {
	left time.Duration
	done chan struct{}
}

// quantum is the most CPU a turn spends on one request: well under the
// scenarios' work per request (a millisecond and more), so round robin is
// processor sharing to within a turn, and long beside the cost of a turn
// (a lock and a slice operation).
const quantum = 250 * time.Microsecond

// newProcessor starts the workers for a pod of limit cores (one per core
// or part of one, so the workers can use the whole limit), adding the CPU
// they spend to progress as they spend it. Each worker's thread first
// calls join (when not nil), to move into the pod's cgroups.
func newProcessor(limit float64, progress *atomic.Int64, join func() error) (*processor, error) {
	n := max(1, int(math.Ceil(limit)))
	p := &processor{progress: progress, pace: newPacer(limit), workers: n}
	p.ready = sync.NewCond(&p.mu)
	joined := make(chan error, n)
	for range n {
		go p.work(join, joined)
	}
	var errs []error
	for range n {
		errs = append(errs, <-joined)
	}
	if err := errors.Join(errs...); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Spend returns once d of the pod's CPU has been spent on it, in turns
// with the other requests in flight.
func (p *processor) Spend(d time.Duration) {
	if d <= 0 {
		return
	}
	j := &job{left: d, done: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if p.pace != nil && p.jobs < p.workers {
		p.pace.resume(monotonic())
	}
	p.jobs++
	p.turns = append(p.turns, j)
	p.ready.Signal()
	p.mu.Unlock()
	<-j.done
}

// Close stops the workers after their current turns and releases every
// request still waiting.
func (p *processor) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, j := range p.turns {
		close(j.done)
	}
	p.turns = nil
	p.ready.Broadcast()
}

// work runs turns until Close, on a thread of its own, so Burn reads this
// worker's CPU alone and the thread can sit in the pod's cgroups.
func (p *processor) work(join func() error, joined chan<- error) {
	runtime.LockOSThread()
	// A thread that joined the pod's cgroups dies with its goroutine
	// rather than go back to the runtime's pool: it is never unlocked.
	if join != nil {
		if err := join(); err != nil {
			joined <- err
			return
		}
	}
	joined <- nil
	for {
		j := p.next()
		if j == nil {
			return
		}
		j.left -= p.turn(min(quantum, j.left))
		p.mu.Lock()
		// Once closed, this job, out for its turn when Close released the
		// queue, is released too.
		if p.closed || j.left <= 0 {
			p.jobs--
			close(j.done)
		} else {
			p.turns = append(p.turns, j)
			p.ready.Signal()
		}
		p.mu.Unlock()
	}
}

// turn spends d of CPU on the calling worker's thread, once the pod's
// limit allows it, and returns what it spent. The CPU the thread spends
// waiting for its turn (the kernel's timer and two context switches, tens
// of microseconds) is the pod's, counted by its cgroup and its quota, so
// it is charged to the turn as a request's own work would be: the pod
// then spends its limit, and each request the CPU its work is.
func (p *processor) turn(d time.Duration) time.Duration {
	if p.pace == nil {
		return Burn(d, p.progress)
	}
	before := threadCPU()
	p.pace.take(d)
	waited := threadCPU() - before
	p.progress.Add(int64(waited))
	spent := waited + Burn(d-waited, p.progress)
	p.pace.settle(d, spent)
	return spent
}

// next takes the front job, waiting for one; nil once closed.
func (p *processor) next() *job {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.turns) == 0 && !p.closed {
		p.ready.Wait()
	}
	if p.closed {
		return nil
	}
	j := p.turns[0]
	p.turns[0] = nil
	p.turns = p.turns[1:]
	return j
}

package backend

import (
	"math"
	"sync"
)

// overhead keeps a pod's CPU per request equal to the scenario's. The
// pod's cgroup holds only its worker threads (Cgroups), and they spend CPU
// beside the work they burn: the runtime's hand-offs as a worker sleeps and
// wakes, and the kernel's switching and throttling under a quota of a
// fraction of a millisecond per period; tens of microseconds a request.
// (A paced worker's wait for its turn is measured on its thread and
// charged to the turn itself, processor.turn, so it is not counted here.)
// That CPU is the pod's own processor's, on its requests' path, so the work
// each request burns is its draw scaled by 1 − overhead ÷ mean, and the pod
// serves at its limit the rate the scenario says it does. The overhead is
// measured: the pod cgroup's CPU less the CPU burned, per request,
// smoothed over seconds. Until the first measurement the work is the draw.
//
// Both sides of the difference count work as it is spent (Burn's
// progress), and the requests are the more of those arrived and answered:
// an overloaded pod has many requests part-way through their work and
// answers few, and counting work only when a request ends, per request
// answered, read its work in progress as overhead, shrank every new
// request's work towards nothing, and made the pod faster than its
// scenario just when it was overloaded.
type overhead struct {
	mu     sync.Mutex
	perReq float64 // seconds of CPU per request beside the work
	known  bool
}

// overheadSmoothing weighs each second's measurement: about three seconds'
// memory, short beside a warm-up and long beside a second's noise.
const overheadSmoothing = 0.3

// observe takes one interval's CPU of the cgroup, CPU burned, and
// requests arrived and answered.
func (o *overhead) observe(cgroupCPU, burned, arrived, served float64) {
	requests := max(arrived, served)
	if requests <= 0 {
		return
	}
	per := math.Max(0, (cgroupCPU-burned)/requests)
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.known {
		o.perReq, o.known = per, true
		return
	}
	o.perReq += overheadSmoothing * (per - o.perReq)
}

// scale is what a request's draw is multiplied by, for a mean work of mean
// seconds.
func (o *overhead) scale(mean float64) float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.known || mean <= 0 {
		return 1
	}
	return math.Max(0, 1-o.perReq/mean)
}

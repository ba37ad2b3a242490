package emulator

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evArrival    eventKind = iota // an external request leaves the client
	evDeliver                     // a request reaches its replica
	evCompletion                  // a replica's next CPU completion (if version matches)
	evResponse                    // a response reaches the caller
	evSample                      // Prometheus-like scrape
	evTraffic                     // traffic controller cycle
	evAutoscale                   // KEDA poll + HPA sync
	evPodReady                    // a starting pod becomes ready
	evInject                      // a scenario event (slowdown, failure)
	evCapacity                    // a step up in the workload: is capacity there yet?
	evStop                        // no more arrivals
)

// event is one scheduled happening; seq breaks ties so equal times fire in
// scheduling order and runs are deterministic.
type event struct {
	at      float64
	seq     uint64
	kind    eventKind
	version uint32
	req     *request
	rep     *replica
	idx     int
}

// eventQueue is a binary min-heap on (at, seq).
type eventQueue struct {
	items []event
	seq   uint64
}

func (q *eventQueue) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.items = append(q.items, e)
	for i := len(q.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = event{}
	q.items = q.items[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q.items) && q.less(l, m) {
			m = l
		}
		if r < len(q.items) && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}

func (q *eventQueue) len() int { return len(q.items) }

package emulator

import "github.com/artt-dev/artt/internal/heap"

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evArrival    eventKind = iota // an external request leaves the client
	evDeliver                     // a request reaches its replica
	evCompletion                  // a replica's next CPU completion (if version matches)
	evResponse                    // a response reaches the caller
	evSample                      // Prometheus-like scrape
	evScrape                      // Prometheus scrapes one pod KEDA scales on artt-scaler
	evProtect                     // traffic controller's fast path
	evTraffic                     // traffic controller cycle
	evAutoscale                   // KEDA poll + HPA sync
	evPodReady                    // a starting pod becomes ready
	evInject                      // a scenario event (slowdown, failure)
	evCapacity                    // a step up in the workload: is capacity there yet?
	evReplay                      // a replayed routing table comes into force
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

// eventQueue is a min-heap on (at, seq); push numbers the events.
type eventQueue struct {
	heap heap.Heap[event]
	seq  uint64
}

func newEventQueue() eventQueue {
	return eventQueue{heap: heap.New(func(a, b *event) bool {
		if a.at != b.at {
			return a.at < b.at
		}
		return a.seq < b.seq
	})}
}

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.heap.Push(e)
}

func (q *eventQueue) pop() event { return q.heap.Pop() }

func (q *eventQueue) len() int { return q.heap.Len() }

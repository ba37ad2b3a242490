package emulator

import (
	"github.com/artt-dev/artt/internal/heap"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// node is an emulated worker.
type node struct {
	idx   int
	name  string
	cores float64
	speed float64
	// neighbour is the cores a process outside the application keeps busy
	// on the node (node-contention); quota caps the cores the node's pods
	// get together (node-quota), 0 for none.
	neighbour, quota float64
	ready            bool
	replicas         []*replica // pods placed here and not gone
	demands          []float64  // fairShare's scratch
}

// replicaState is a pod's lifecycle.
type replicaState uint8

const (
	starting replicaState = iota
	ready
	terminating // out of the endpoints, finishing in-flight work
	gone
)

// replica is an emulated pod. Requests in service share its CPU by
// processor sharing: every in-service request progresses at the same rate,
// so a virtual clock v (work done per request so far) and each request's
// finish point on it give the next completion without touching the others.
type replica struct {
	id    int
	name  string
	uid   uint64 // random, as a Kubernetes UID: the last tie-break of a scale-down
	comp  *component
	node  *node
	state replicaState

	inService   requestHeap // by finishV
	waiting     []*request  // FCFS queue when workers are busy
	outstanding int         // requests here not yet answered (a terminating pod waits for 0)

	// proxy is the pod's Envoy sidecar, through which its calls leave.
	proxy sidecar

	v, rate, cores float64 // virtual clock, per-request rate, cores in use
	last           float64 // time v and cpu were last advanced
	version        uint32  // invalidates stale completion events
	// cpuWaiting is the fraction of the time its threads wait for a CPU
	// now (its PSI "some"), throttled whether its own quota stops it now.
	cpuWaiting float64
	throttled  bool

	// Counters, cumulative: CPU, and the cgroup's CPU pressure (seconds
	// some thread waited) and own-quota throttled periods.
	cpuSeconds       float64
	waitingSeconds   float64
	throttledPeriods float64
	arrivals         int64
	answered         int64
	errors           int64
	// Latencies (ms) of requests answered since the last sample.
	window []float64

	born, died float64
	// readyAt is when it became Ready (NaN before), firstArrival when
	// its first request arrived (read once arrivals > 0).
	readyAt, firstArrival float64
	// cpuAtWarmup is the CPU counter when measurement began (or at birth).
	cpuAtWarmup, measureFrom float64
}

// component is an emulated microservice.
type component struct {
	idx   int
	spec  scenario.Component
	calls []*component
	pods  []*replica // not gone, creation order
	// readyOn lists ready pods per node index.
	readyOn  [][]*replica
	ready    []*replica
	upstream bool // called by another component (or the ingress)

	// weights are the installed locality weights (Istio distribute) per
	// source node index: integer percentages over destination nodes; nil
	// (or a nil row) means no `from` entry applies to that node.
	weights [][]localityWeight
	// tableInForce is true while the weights hold a `from` entry: on gRPC
	// a table policy's rule then says ROUND_ROBIN (grpclb.go).
	tableInForce bool
	// routingVersion changes whenever endpoints or weights change, so the
	// sidecars rebuild their locality schedules.
	routingVersion uint64

	// Sampled history for the autoscalers, per sample interval: requests
	// served and arrived per second at ready pods, and their CPU cores.
	demand, arrivals, cpu []float64
	// inFlight is the requests sent to the component's pods and not yet
	// answered; inFlightArea its integral over time up to inFlightAt (the
	// concurrency Knative's queue-proxy averages).
	inFlight                 int
	inFlightArea, inFlightAt float64
	// HPA state.
	recommendations []recommendation
	scalingEvents   int
	next            int // next pod number
}

// countInFlight adds d requests in flight at time now.
func (c *component) countInFlight(now float64, d int) {
	c.inFlightArea += float64(c.inFlight) * (now - c.inFlightAt)
	c.inFlightAt = now
	c.inFlight += d
}

// inFlightIntegral is the integral of the requests in flight up to now.
func (c *component) inFlightIntegral(now float64) float64 {
	return c.inFlightArea + float64(c.inFlight)*(now-c.inFlightAt)
}

// localityWeight is one `to` entry of a distribute rule.
type localityWeight struct {
	node   int
	weight uint32
}

// weightsFrom is the distribute row for callers on node n, or nil.
func (c *component) weightsFrom(n *node) []localityWeight {
	if c.weights == nil {
		return nil
	}
	return c.weights[n.idx]
}

type recommendation struct {
	at       float64
	replicas int
}

// request is one call being served: the external request (parent nil) or
// a call from an upstream request.
type request struct {
	root    *rootRequest
	parent  *request
	comp    *component
	rep     *replica
	from    *node         // caller's node, where the response goes
	via     *envoyCluster // the caller sidecar's view it was sent through
	finishV float64
	work    float64
	arrived float64
	sentAt  float64 // when the caller's sidecar sent it
	callIdx int
	failed  bool
	// key names the call by its path from the root: its draws come from
	// it (package workload, draws.go).
	key uint64
}

// rootRequest is a client's request end to end.
type rootRequest struct {
	start    float64
	measured bool
	// network is the time spent on the network across every hop, both ways.
	network float64
}

// requestHeap is a min-heap of requests on finishV.
type requestHeap = heap.Heap[*request]

func newRequestHeap() requestHeap {
	return heap.New(func(a, b **request) bool { return (*a).finishV < (*b).finishV })
}

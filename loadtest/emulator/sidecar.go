package emulator

import (
	"github.com/artt-dev/artt/loadtest/scenario"
)

// sidecar is one Envoy proxy: a caller pod's sidecar or an ingress gateway
// replica. Envoy keeps its load-balancing state per process: the requests
// this proxy has in flight to each host (host.stats().rq_active_), its
// round-robin positions, its locality schedule and its outlier detector.
// Two callers therefore see different counts for the same host.
type sidecar struct {
	node     *node
	clusters []*envoyCluster // by component index, made on first use
}

// envoyCluster is one sidecar's view of one destination component: an Envoy
// cluster.
type envoyCluster struct {
	comp *component
	// active counts this sidecar's requests to each pod (by pod id) whose
	// response has not reached the sidecar yet, return trip included.
	active []int32
	// rr is the round-robin position per locality (node index) and, in
	// the last slot, over all hosts; seed is where positions start, drawn
	// per proxy as Envoy does so proxies do not move in lockstep.
	rr   []int
	seed int
	// localities is the weighted schedule over localities, rebuilt when
	// the component's endpoints or weights change (routingVersion) or an
	// ejection changes the healthy hosts (ejectVersion).
	localities     edfSchedule
	builtFor       uint64
	builtEjections uint64
	// outlier is nil when outlier detection is off.
	outlier *outlierDetector
	// rtts are the peak-EWMA round-trip estimates per pod (PEAK_EWMA).
	rtts []rttEstimate
	// orca holds the load reports per pod, cswrr the weighted schedule per
	// locality and over all hosts (CLIENT_SIDE_WEIGHTED_ROUND_ROBIN), and
	// grpcWRR a gRPC client's picker in its place (grpcwrr.go).
	orca    []orcaWeight
	cswrr   []cswrrSchedule
	grpcWRR grpcWRR
}

// cluster returns the sidecar's state for component c.
func (e *Emulator) cluster(s *sidecar, c *component) *envoyCluster {
	if s.clusters == nil {
		s.clusters = make([]*envoyCluster, len(e.comps))
	}
	u := s.clusters[c.idx]
	if u == nil {
		u = &envoyCluster{comp: c, rr: make([]int, len(e.nodes)+1), seed: e.rng.IntN(1 << 20), builtFor: ^uint64(0)}
		if od := e.run.OutlierDetection; od != nil {
			u.outlier = newOutlierDetector(od)
		}
		s.clusters[c.idx] = u
	}
	return u
}

// inFlight is this sidecar's count of requests outstanding at p.
func (u *envoyCluster) inFlight(p *replica) int32 {
	if p.id < len(u.active) {
		return u.active[p.id]
	}
	return 0
}

func (u *envoyCluster) sent(p *replica) {
	u.active = grownFor(u.active, p.id)
	u.active[p.id]++
}

// grownFor is s long enough to index by pod id (the sidecar's per-pod
// state, by id as pods are created).
func grownFor[T any](s []T, id int) []T {
	if id < len(s) {
		return s
	}
	grown := make([]T, id+1, 2*(id+1))
	copy(grown, s)
	return grown
}

func (u *envoyCluster) answered(p *replica) { u.active[p.id]-- }

// newIngress builds the ingress gateway replicas.
func newIngress(nodes []*node, in scenario.Ingress, idx map[string]int) []*sidecar {
	out := make([]*sidecar, in.Replicas)
	for i := range out {
		out[i] = &sidecar{node: nodes[idx[in.Nodes[i%len(in.Nodes)]]]}
	}
	return out
}

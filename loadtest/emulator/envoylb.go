package emulator

import "math"

// Envoy's upstream host selection, as each sidecar runs it (docs/lab.md
// cites the sources):
//
//  1. With locality weights (Istio's localityLbSetting.distribute, whose
//     `from` matches the sidecar's locality), pick a locality by an
//     earliest-deadline-first schedule over the effective weights
//     (HostSetImpl::chooseLocality). A locality's effective weight is its
//     weight × min(1, 1.4 × healthy hosts ÷ hosts) (the overprovisioning
//     factor), so a locality with no healthy host is never picked. Istio
//     removes the endpoints of localities missing from `to`
//     (applyLocalityWeights), so they receive nothing.
//  2. Inside the locality, or over every host when no weights apply, pick a
//     host by the cluster's policy: LEAST_REQUEST samples two hosts at
//     random, repeats allowed, and keeps the one this sidecar has fewer
//     requests in flight to, the first on a tie
//     (LeastRequestLoadBalancer::unweightedHostPickNChoices); ROUND_ROBIN
//     cycles; RANDOM draws uniformly; PEAK_EWMA is Linkerd's balancer
//     (peakewma.go); CLIENT_SIDE_WEIGHTED_ROUND_ROBIN weighs hosts by their
//     ORCA load reports (cswrr.go). Every endpoint in the lab has the same weight, so
//     Envoy's unweighted paths are the ones that apply.

// overprovisioningFactor is Envoy's default (140%), by which a partly
// healthy locality keeps its full weight.
const overprovisioningFactor = 1.4

// pick returns the pod of c that a request from sidecar s goes to, or nil
// when the sidecar has no healthy host for it (Envoy answers 503).
func (e *Emulator) pick(s *sidecar, c *component) *replica {
	if len(c.ready) == 0 {
		return nil
	}
	u := e.cluster(s, c)
	if u.outlier != nil {
		u.outlier.sweep(e.now)
	}
	hosts, slot, policy := c.ready, len(e.nodes), e.run.LBPolicy
	switch row := c.weightsFrom(s.node); {
	case e.grpc && (policy == "ROUND_ROBIN" || c.tableInForce):
		// The user's ROUND_ROBIN, or the one artt-traffic writes with a
		// table (grpclb.go).
		policy = "ROUND_ROBIN"
		loc, ok := e.grpcLocality(c, row)
		if !ok {
			return nil // no locality in `to` has a ready pod
		}
		hosts, slot = c.readyOn[loc], loc
	case e.grpc:
		// gRPC's least_request and weighted_round_robin have no locality
		// layer: they balance over every pod.
	case row != nil:
		loc, ok := e.chooseLocality(u, row)
		if !ok {
			return nil // every locality in `to` is empty or ejected
		}
		hosts, slot = c.readyOn[loc], loc
	}
	if u.outlier != nil && len(u.outlier.out) > 0 {
		e.scratch = e.scratch[:0]
		for _, h := range hosts {
			if !u.outlier.isEjected(h) {
				e.scratch = append(e.scratch, h)
			}
		}
		hosts = e.scratch
		if len(hosts) == 0 {
			return nil
		}
	}
	switch policy {
	case "RANDOM":
		return hosts[e.rng.IntN(len(hosts))]
	case "ROUND_ROBIN":
		h := hosts[(u.seed+u.rr[slot])%len(hosts)]
		u.rr[slot]++
		return h
	case "PEAK_EWMA":
		return e.pickPeakEWMA(u, hosts)
	case "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN":
		if e.grpc {
			return e.pickGRPCWRR(u, hosts)
		}
		return e.pickCSWRR(u, hosts, slot)
	default: // LEAST_REQUEST, choice_count 2
		a := hosts[e.rng.IntN(len(hosts))]
		b := hosts[e.rng.IntN(len(hosts))]
		if u.inFlight(b) < u.inFlight(a) {
			return b
		}
		return a
	}
}

// chooseLocality picks a destination node by the sidecar's schedule,
// rebuilding it when endpoints, weights or ejections changed.
func (e *Emulator) chooseLocality(u *envoyCluster, row []localityWeight) (int, bool) {
	c := u.comp
	ejections := uint64(0)
	if u.outlier != nil {
		ejections = u.outlier.version
	}
	if u.builtFor != c.routingVersion || u.builtEjections != ejections {
		u.localities.reset()
		for _, w := range row {
			hosts := c.readyOn[w.node]
			if len(hosts) == 0 {
				continue
			}
			healthy := len(hosts)
			if u.outlier != nil {
				for _, h := range hosts {
					if u.outlier.isEjected(h) {
						healthy--
					}
				}
			}
			eff := float64(w.weight) * math.Min(1, overprovisioningFactor*float64(healthy)/float64(len(hosts)))
			if eff > 0 {
				u.localities.add(w.node, eff)
			}
		}
		// Envoy starts each new schedule after a random number of picks so
		// that proxies built at the same moment do not move in lockstep.
		if len(u.localities.entries) > 1 {
			for range e.rng.IntN(100) {
				u.localities.pick()
			}
		}
		u.builtFor, u.builtEjections = c.routingVersion, ejections
	}
	if len(u.localities.entries) == 0 {
		return 0, false
	}
	return u.localities.pick(), true
}

// edfSchedule is Envoy's EdfScheduler: each entry's next deadline is the
// schedule's time plus 1/weight; a pick takes the earliest deadline (the
// earliest added on a tie), advances time to it and re-adds the entry. It
// is a smooth weighted round robin: over any run of picks each entry's
// count stays within one of its weighted share.
type edfSchedule struct {
	entries []edfEntry
	now     float64
	order   uint64
}

type edfEntry struct {
	node     int
	weight   float64
	deadline float64
	order    uint64
}

func (s *edfSchedule) reset() {
	s.entries = s.entries[:0]
	s.now, s.order = 0, 0
}

func (s *edfSchedule) add(node int, weight float64) {
	s.order++
	s.entries = append(s.entries, edfEntry{node: node, weight: weight, deadline: s.now + 1/weight, order: s.order})
}

func (s *edfSchedule) pick() int {
	best := 0
	for i := 1; i < len(s.entries); i++ {
		a, b := &s.entries[i], &s.entries[best]
		if a.deadline < b.deadline || (a.deadline == b.deadline && a.order < b.order) {
			best = i
		}
	}
	x := &s.entries[best]
	s.now = x.deadline
	s.order++
	x.deadline, x.order = s.now+1/x.weight, s.order
	return x.node
}

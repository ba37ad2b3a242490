package emulator

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/internal/stats"
)

// Envoy's client_side_weighted_round_robin (and gRPC's weighted_round_robin,
// gRFC A58), with per-request ORCA load reports: each response carries the
// backend's request rate (qps), error rate (eps) and CPU utilisation; each
// proxy weighs a host qps ÷ (utilisation + penalty × eps ÷ qps) and picks
// hosts by a weighted round robin over those weights. Defaults from the
// extension's API: blackout_period 10 s, weight_expiration_period 3 min,
// weight_update_period 1 s, error_utilization_penalty 1.
const (
	cswrrBlackout     = 10.0
	cswrrExpiration   = 180.0
	cswrrUpdatePeriod = 1.0
	cswrrErrorPenalty = 1.0
)

// orcaWeight is one proxy's view of one host's load reports.
type orcaWeight struct {
	weight float64
	// nonEmptySince is when reports began to give the host a weight (0:
	// not since it last had none); lastUpdate the newest report's time.
	nonEmptySince, lastUpdate float64
}

// cswrrSchedule is a proxy's weighted round robin over one set of hosts
// (one locality, or all), rebuilt every weight update period.
type cswrrSchedule struct {
	edf     edfSchedule
	hosts   []*replica
	builtAt float64
	version uint64
}

// reportLoad is the ORCA report a response from pod p carries: the pod's
// request rate, error rate and CPU utilisation (CPU ÷ limit) over the last
// sample interval, as a backend's metrics recorder would report them.
func (e *Emulator) reportLoad(u *envoyCluster, p *replica) {
	s, ok := e.res.lastSample[p.id]
	if !ok {
		return
	}
	util := s.cpu / p.comp.spec.CPULimit
	errRate := s.errRate
	if math.IsNaN(errRate) {
		errRate = 0
	}
	w := cswrrWeight(s.rps, util, errRate*s.rps)
	u.orca = grownFor(u.orca, p.id)
	o := &u.orca[p.id]
	if w <= 0 {
		return
	}
	if o.nonEmptySince == 0 {
		o.nonEmptySince = e.now
	}
	o.weight, o.lastUpdate = w, e.now
}

// cswrrWeight is A58's qps ÷ (utilisation + penalty × eps ÷ qps), 0 when
// the report cannot give one.
func cswrrWeight(qps, utilization, eps float64) float64 {
	if !(qps > 0) || !(utilization > 0) {
		return 0
	}
	return qps / (utilization + cswrrErrorPenalty*eps/qps)
}

// weightAt is the host's weight at now: 0 while none was reported, for the
// blackout period after reports began, and once they expired (which
// starts the blackout again).
func (o *orcaWeight) weightAt(now float64) float64 {
	switch {
	case o.nonEmptySince == 0:
		return 0
	case now-o.lastUpdate >= cswrrExpiration:
		o.nonEmptySince = 0
		return 0
	case now-o.nonEmptySince < cswrrBlackout:
		return 0
	}
	return o.weight
}

// pickCSWRR picks a host of hosts (slot: the locality, or all) by the
// proxy's weighted round robin, rebuilding the weights every update period
// or when the hosts change. Hosts without a weight get the median of those
// with one (Envoy); with none, all weigh the same.
func (e *Emulator) pickCSWRR(u *envoyCluster, hosts []*replica, slot int) *replica {
	if u.cswrr == nil {
		u.cswrr = make([]cswrrSchedule, len(e.nodes)+1)
	}
	s := &u.cswrr[slot]
	if s.edf.entries == nil || e.now-s.builtAt >= cswrrUpdatePeriod || s.version != u.comp.routingVersion || !slices.Equal(s.hosts, hosts) {
		e.buildCSWRR(u, s, hosts)
	}
	return s.hosts[s.edf.pick()]
}

func (e *Emulator) buildCSWRR(u *envoyCluster, s *cswrrSchedule, hosts []*replica) {
	weights := make([]float64, len(hosts))
	var known []float64
	for i, h := range hosts {
		if h.id < len(u.orca) {
			weights[i] = u.orca[h.id].weightAt(e.now)
		}
		if weights[i] > 0 {
			known = append(known, weights[i])
		}
	}
	fill := 1.0
	if len(known) > 0 {
		fill = stats.MedianInPlace(known)
	}
	s.edf.reset()
	if s.edf.entries == nil {
		s.edf.entries = make([]edfEntry, 0, len(hosts))
	}
	for i, w := range weights {
		if w <= 0 {
			w = fill
		}
		s.edf.add(i, w)
	}
	s.hosts = append(s.hosts[:0], hosts...)
	s.builtAt, s.version = e.now, u.comp.routingVersion
}

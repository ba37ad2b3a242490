package traffic

import (
	"cmp"
	"math"
	"time"
)

// CFSPeriod is the period over which the kernel enforces a CPU quota: the
// kubelet's default --cpu-cfs-quota-period, 100 ms.
const CFSPeriod = 100 * time.Millisecond

// CPUStretch is how much less CPU the group's replicas got while they
// were runnable than their own limits allow: over the replicas whose CPU
// and waiting are known and that used CPU, the wall time their work took
// while others held the CPU, against the time their limits give that work.
// A thread running a fraction φ of the time it is runnable takes 1/φ as
// long, and (run + wait) ÷ run is that factor.
//
// A pod busy at its limit waits in the periods its own quota throttles
// it, for less than each period: throttled periods × its period (the
// replica's, else period) bound that waiting, and the rest is someone else's (a neighbour, a quota above
// it). Only a quota at its limit explains it, though: a throttled period
// means the pod used its whole quota, so a pod throttled n times a second
// that used less than n × period × limit ÷ cut (cut: the bar a slowdown
// must pass) runs under a quota cut below its limit, and its throttling
// explains none of its waiting. A replica whose throttling is unknown is
// left out while its CPU is at least busy of its limit. ok is false when
// no replica qualifies.
//
// The rest of the waiting costs a pod capacity only below what its limit
// lets it use: a thread that runs φ of its runnable time still uses a
// limit below one core whole while φ ≥ limit, and only φ ÷ limit of
// it below that. A pod with a sub-core limit that shares its node's cores
// without reaching its quota is throttled in no period, so all its
// waiting is someone else's, and 1/φ would read a pod that lost a fifth of
// its limit (φ = 0.04 under a 0.05-core limit) as 25 times slower; each
// replica's factor is therefore (run + others' wait) × min(1, limit) ÷ run,
// at least 1.
func (g Group) CPUStretch(busy, cut float64, period time.Duration) (stretch float64, ok bool) {
	var wall, used float64
	for _, r := range g.Replicas {
		if math.IsNaN(r.CPUWaiting) || !(r.CPU > 0) {
			continue
		}
		own := r.ThrottledPeriods * cmp.Or(r.CFSPeriod, period).Seconds()
		switch {
		case math.IsNaN(r.ThrottledPeriods):
			if r.CPU/r.Limit() >= busy {
				continue
			}
			own = 0
		case own*r.Limit() > cut*r.CPU:
			own = 0 // throttled under a quota cut below its limit
		}
		waited := math.Max(0, r.CPUWaiting-own)
		wall += math.Max(r.CPU, (r.CPU+waited)*math.Min(1, r.Limit()))
		used += r.CPU
	}
	if !(used > 0) {
		return 1, false
	}
	return wall / used, true
}

// NodeUtilization is the CPU the snapshot's replicas on each node use, as
// a fraction of the node's allocatable CPU (a replica whose CPU is unknown
// counts for none); nodes whose CPU is unknown are left out.
func (s Snapshot) NodeUtilization() map[string]float64 {
	used := make(map[string]float64, len(s.Nodes))
	for _, r := range s.Replicas {
		if r.CPU > 0 {
			used[r.Node] += r.CPU
		}
	}
	out := make(map[string]float64, len(s.Nodes))
	for _, n := range s.Nodes {
		if n.CPU > 0 {
			out[n.Name] = used[n.Name] / n.CPU
		}
	}
	return out
}

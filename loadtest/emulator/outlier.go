package emulator

import (
	"math"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// maxEjectionTime is Envoy's default cap on an ejection (300 s).
const maxEjectionTime = 300.0

// outlierDetector is one sidecar's passive outlier detection for one
// cluster, as Envoy runs Istio's outlierDetection: a host is ejected when
// its consecutive error responses reach the threshold, provided the
// ejected hosts would stay within maxEjectionPercent of the cluster
// (Envoy's default, without always_eject_one_host); it stays out for
// baseEjectionTime × the number of times it was ejected (at most 300 s)
// and returns at the first interval sweep after that. Every error the lab
// produces (a reset by a crashed pod, a 503 from a callee) is a 5xx and a
// gateway error at once, as Envoy maps local-origin failures to 503.
type outlierDetector struct {
	consecutive5xx, consecutiveGateway int
	interval, base, maxPercent         float64

	streak []int32   // consecutive errors per pod id
	times  []int32   // ejections so far per pod id
	until  []float64 // ejected until (0: not ejected) per pod id
	out    []*replica
	// version changes on every ejection and return, so locality schedules
	// that depend on healthy counts are rebuilt.
	version uint64
}

func newOutlierDetector(od *scenario.OutlierDetection) *outlierDetector {
	return &outlierDetector{
		consecutive5xx:     *od.Consecutive5xxErrors,
		consecutiveGateway: od.ConsecutiveGatewayErrors,
		interval:           od.Interval.Seconds(),
		base:               od.BaseEjectionTime.Seconds(),
		maxPercent:         od.MaxEjectionPercent,
	}
}

func (o *outlierDetector) grow(id int) {
	for len(o.streak) <= id {
		o.streak = append(o.streak, 0)
		o.times = append(o.times, 0)
		o.until = append(o.until, 0)
	}
}

func (o *outlierDetector) isEjected(p *replica) bool { return p.id < len(o.until) && o.until[p.id] > 0 }

// sweep returns the hosts whose ejection ended by the last interval sweep.
func (o *outlierDetector) sweep(now float64) {
	if len(o.out) == 0 {
		return
	}
	lastSweep := math.Floor(now/o.interval) * o.interval
	kept := o.out[:0]
	for _, p := range o.out {
		// Hosts that left the endpoints leave the detector with them.
		if o.until[p.id] <= lastSweep || p.state != ready {
			o.until[p.id] = 0
			o.streak[p.id] = 0
			o.version++
			continue
		}
		kept = append(kept, p)
	}
	o.out = kept
}

// observe records a response from p and ejects p when its streak reaches
// a threshold. hosts is the cluster's current endpoint count.
func (o *outlierDetector) observe(p *replica, failed bool, now float64, hosts int) {
	o.grow(p.id)
	if !failed {
		o.streak[p.id] = 0
		return
	}
	o.streak[p.id]++
	s := int(o.streak[p.id])
	hit := (o.consecutive5xx > 0 && s >= o.consecutive5xx) || (o.consecutiveGateway > 0 && s >= o.consecutiveGateway)
	if !hit || o.until[p.id] > 0 || hosts == 0 {
		return
	}
	if 100*float64(len(o.out)+1)/float64(hosts) > o.maxPercent {
		return
	}
	o.times[p.id]++
	o.until[p.id] = now + math.Min(o.base*float64(o.times[p.id]), math.Max(o.base, maxEjectionTime))
	o.out = append(o.out, p)
	o.version++
}

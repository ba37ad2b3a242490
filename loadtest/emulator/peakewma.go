package emulator

import "math"

// Linkerd's default balancer (linkerd2-proxy's outbound HTTP balancer over
// tower's load/peak_ewma.rs and balance/p2c): per proxy and endpoint, a
// peak-EWMA estimate of the round-trip time; the cost of an endpoint is the
// estimate × (this proxy's requests pending to it + 1), and each request
// goes to the cheaper of two distinct endpoints drawn at random.
const (
	// peakEWMADecay is the estimate's decay time constant τ (Linkerd's
	// 10 s).
	peakEWMADecay = 10.0
	// peakEWMADefaultRTT is a new endpoint's estimate (Linkerd's 30 ms).
	peakEWMADefaultRTT = 0.030
)

// rttEstimate is tower's RttEstimate, in seconds.
type rttEstimate struct {
	rtt, at float64
	started bool
}

// update folds a round trip of rtt seconds, observed at now, into the
// estimate: a slower sample is taken at once (the peak), a faster one
// moves the estimate towards it by 1 − e^(−elapsed/τ) since the last
// update. A sample of 0 is how the estimate decays while it is read.
func (r *rttEstimate) update(now, rtt float64) float64 {
	if r.rtt < rtt {
		r.rtt = rtt
	} else {
		decay := math.Exp(-(now - r.at) / peakEWMADecay)
		r.rtt = r.rtt*decay + rtt*(1-decay)
	}
	r.at = math.Max(r.at, now)
	return r.rtt
}

// estimate is the sidecar's estimate for pod p, started at the default
// when the proxy first meets the endpoint.
func (u *envoyCluster) estimate(p *replica, now float64) *rttEstimate {
	u.rtts = grownFor(u.rtts, p.id)
	r := &u.rtts[p.id]
	if !r.started {
		*r = rttEstimate{rtt: peakEWMADefaultRTT, at: now, started: true}
	}
	return r
}

// peakEWMACost is tower's PeakEwma load: the estimate, decayed to now, ×
// (pending + 1).
func (u *envoyCluster) peakEWMACost(p *replica, now float64) float64 {
	return u.estimate(p, now).update(now, 0) * float64(u.inFlight(p)+1)
}

// pickPeakEWMA is tower's power of two choices over two distinct endpoints
// (the first on a tie).
func (e *Emulator) pickPeakEWMA(u *envoyCluster, hosts []*replica) *replica {
	if len(hosts) == 1 {
		return hosts[0]
	}
	i := e.rng.IntN(len(hosts))
	j := e.rng.IntN(len(hosts) - 1)
	if j >= i {
		j++
	}
	a, b := hosts[i], hosts[j]
	if u.peakEWMACost(b, e.now) < u.peakEWMACost(a, e.now) {
		return b
	}
	return a
}

// observeRTT folds a response's round trip, from the request leaving this
// sidecar to its answer reaching it, into the sidecar's estimate.
func (u *envoyCluster) observeRTT(p *replica, sentAt, now float64) {
	u.estimate(p, now).update(now, now-sentAt)
}

package allocate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/health"
)

// healthPass is one pass of the health trackers over a component's groups.
type healthPass struct {
	tracker *health.Tracker
	at      time.Time
	// nodeUse is each node's CPU used by the snapshot's pods, as a
	// fraction of its allocatable CPU (Snapshot.NodeUtilization).
	nodeUse   map[string]float64
	minWeight float64
	// judgeLatency is true where latency is the group's own (components
	// that call no other): a caller's latency includes its downstream
	// calls, which locality routing makes differ per node, so it would
	// blame a caller for its callee and move traffic back and forth.
	// Errors, CPU per request and CPU waiting count everywhere.
	judgeLatency bool
	// learn is true when the snapshot's measurements are new to the
	// trackers; otherwise they report what they hold.
	learn bool
}

// apply observes each group's health and scales its share: Healthy × its
// weight (1, or less while it climbs back after a cut), Degraded ×
// max(MinWeight, score) but never below MinWeight × its fair
// (replica-count) share, Unhealthy 0. When every group is Unhealthy the
// shares are kept as they were: there is nowhere else to send the traffic.
func (h healthPass) apply(groups []traffic.Group, shares []float64) ([]float64, []health.Status, string) {
	tr := h.tracker
	fair := replicaCountShares(groups)
	out := make([]float64, len(groups))
	statuses := make([]health.Status, len(groups))
	p95s := make([]float64, len(groups))
	means := make([]float64, len(groups))
	p95Rates := make([]float64, len(groups))
	errs := make([]float64, len(groups))
	costs := make([]float64, len(groups))
	changes := make([]float64, len(groups))
	stretches := make([]float64, len(groups))
	for i, g := range groups {
		p95s[i], means[i], p95Rates[i], errs[i] = groupHealthInputs(g, tr.BusyUtilization())
		if !h.judgeLatency {
			p95s[i] = math.NaN()
		}
		costs[i] = math.NaN()
		if c, ok := g.CostPerRequest(); ok {
			costs[i] = c
		}
		changes[i] = tr.CostChange(g.Node, costs[i])
		stretches[i] = h.stretch(g)
	}
	peerP95s, peerErrs, peerChanges, peerStretches := peerMedians(p95s), peerMedians(errs), peerMedians(changes), peerMedians(stretches)
	total := 0.0
	for i, g := range groups {
		obs := health.Observation{
			P95Ms: p95s[i], ErrorRate: errs[i], PeerP95Ms: peerP95s[i], PeerErrorRate: peerErrs[i],
			Utilization: groupUtilization(g), CostPerRequest: costs[i], PeerCostChange: peerChanges[i],
			CostRate: g.CostRate(), P95Rate: p95Rates[i], MeanMs: means[i], CPUStretch: stretches[i], PeerCPUStretch: peerStretches[i],
		}
		st := tr.Status(g.Node)
		if h.learn {
			st = tr.Observe(g.Node, h.at, obs)
		}
		statuses[i] = st
		switch st.State {
		case health.Healthy:
			out[i] = shares[i] * st.Weight // below 1 while it climbs back after a cut
		case health.Degraded:
			out[i] = math.Max(shares[i]*st.Weight, h.minWeight*fair[i])
		}
		total += out[i]
	}
	if total <= 0 {
		return shares, statuses, "every group is Unhealthy: health ignored this cycle"
	}
	note := ""
	for i := range out {
		out[i] /= total
		if statuses[i].State != health.Healthy && note == "" {
			note = fmt.Sprintf("group on %s is %s", groups[i].Node, statuses[i].State)
		}
	}
	return out, statuses, note
}

// stretch is the group's CPU stretch (traffic.Group.CPUStretch), NaN when
// unknown or when its node's pods use at least BusyUtilization of the
// node's CPU: waiting there may be the pods' own load queueing for the
// node's cores, which the share estimator moves, not a neighbour or a
// quota taking them.
func (h healthPass) stretch(g traffic.Group) float64 {
	busy := h.tracker.BusyUtilization()
	if u, ok := h.nodeUse[g.Node]; ok && u >= busy {
		return math.NaN()
	}
	s, ok := g.CPUStretch(busy, h.tracker.DegradedCostFactor(), h.tracker.CFSPeriod())
	if !ok {
		return math.NaN()
	}
	return s
}

// groupHealthInputs aggregates a group's load-free p95 and mean latency
// (each replica's with its own load taken out, health.LoadFree; the mean
// unknown unless every replica with a p95 has one, so both are over the
// same requests) and error rate, weighting replicas by the requests they
// served (equally when unknown).
// The weights are taken relative to the largest count, so that a count
// near the largest float does not overflow the sums (an infinite p95 then
// reached the health tracker). A replica whose CPU utilisation was at
// least busy gives no latency: slow because busy is load, not sickness,
// and that holds per pod. A group's mean utilisation did not show it: after
// a burst, a pod still draining its backlog (its requests completing
// seconds late) beside new idle pods on its node brought the group under
// the bar, and its node was cut as Degraded just when the new pods could
// least take its traffic.
func groupHealthInputs(g traffic.Group, busy float64) (p95, mean, p95Rate, errRate float64) {
	most := 0.0
	for _, r := range g.Replicas {
		if r.Requests > most {
			most = r.Requests
		}
	}
	var lw, lsum, msum, ew, esum float64
	meanKnown := true
	for _, r := range g.Replicas {
		w := 1.0 // every count unknown or zero: replicas weigh alike
		if most > 0 {
			w = 1 / most // an unknown count weighs one request
			if r.Requests > 0 {
				w = r.Requests / most
			}
		}
		if u := r.CPU / r.Limit(); !math.IsNaN(r.LatencyP95) && !(u >= busy) {
			lsum += w * health.LoadFree(r.LatencyP95, u)
			msum += w * health.LoadFree(r.LatencyMean, u)
			meanKnown = meanKnown && r.LatencyMean > 0
			lw += w
			if r.Requests > 0 {
				p95Rate += r.Requests
			}
		}
		if !math.IsNaN(r.ErrorRate) {
			esum += w * r.ErrorRate
			ew += w
		}
	}
	p95, mean, errRate = math.NaN(), math.NaN(), math.NaN()
	if lw > 0 {
		p95 = lsum / lw
		if meanKnown {
			mean = msum / lw
		}
	}
	if ew > 0 {
		errRate = esum / ew
	}
	return p95, mean, p95Rate, errRate
}

// peerMedians is, for each value, the median of the finite values other
// than it: each group's peers. NaN where there are none. One sort serves
// every group: leaving one value out of a sorted list shifts the middle
// by at most one place.
func peerMedians(xs []float64) []float64 {
	sorted := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			sorted = append(sorted, x)
		}
	}
	slices.Sort(sorted)
	out := make([]float64, len(xs))
	for i, x := range xs {
		gap := len(sorted) // no value left out: x is not among them
		if !math.IsNaN(x) {
			gap, _ = slices.BinarySearch(sorted, x)
		}
		out[i] = medianWithout(sorted, gap)
	}
	return out
}

// medianWithout is the median of sorted without its element at gap (with
// every element when gap is past the end); NaN when nothing is left.
func medianWithout(sorted []float64, gap int) float64 {
	n := len(sorted)
	if gap < n {
		n--
	}
	at := func(k int) float64 {
		if k >= gap {
			k++
		}
		return sorted[k]
	}
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return at(n / 2)
	default:
		return (at(n/2-1) + at(n/2)) / 2
	}
}

// groupUtilization is the group's CPU use over its limits (NaN if unknown).
func groupUtilization(g traffic.Group) float64 {
	cpu := 0.0
	for _, r := range g.Replicas {
		if math.IsNaN(r.CPU) {
			return math.NaN()
		}
		cpu += r.CPU
	}
	return cpu / g.Limit()
}

package allocate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/artt-dev/artt/internal/stats"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/health"
	"github.com/artt-dev/artt/traffic/queueing"
)

// giveBack raises the share of each group that health holds below its
// share (Degraded, or Healthy and climbing back after a cut) to the share
// the equal-delay split gives it, when that is more. A cut helps the tail
// only while the groups left serve its traffic sooner than the cut group
// would: once they are so loaded that a request waits as long there as on
// the slowed group, more cutting makes every request slower. The split
// (queueing.EqualDelaySplit) models each group as a processor-sharing
// server of capacity Σ limits ÷ CPU per request, the held group's scaled
// by what its evidence leaves it (health.Status.Capacity), and gives each
// server used the same mean response time: at light load the slowed
// group's share there is none and the cut stands; near the others' limits
// it is close to what the slowed group can still serve. The groups not
// held give up the difference in proportion to their shares. weighted
// sums to 1; the result does too. note names the groups given back, "" if
// none was.
func giveBack(groups []traffic.Group, weighted []float64, statuses []health.Status) (shares []float64, note string) {
	capacities, rate, ok := equalDelayInputs(groups, statuses)
	if !ok {
		return weighted, ""
	}
	split := queueing.EqualDelaySplit(capacities, rate)
	shares = slices.Clone(weighted)
	var names []string
	var heldSum, freeSum float64
	for i, st := range statuses {
		if !held(st) {
			freeSum += shares[i]
			continue
		}
		if floor := split[i] / rate; floor > shares[i] {
			shares[i] = floor
			names = append(names, groups[i].Node)
		}
		heldSum += shares[i]
	}
	if len(names) == 0 {
		return weighted, ""
	}
	// The groups not held give up what the held ones gained; where that is
	// more than they have, every share is scaled alike.
	scaleHeld, scaleFree := 1.0, (1-heldSum)/freeSum
	if !(freeSum > 0 && heldSum < 1) {
		scaleHeld = 1 / (heldSum + freeSum)
		scaleFree = scaleHeld
	}
	for i, st := range statuses {
		if held(st) {
			shares[i] *= scaleHeld
		} else {
			shares[i] *= scaleFree
		}
	}
	return shares, fmt.Sprintf("given back to %s what the other groups could not carry at an equal delay", strings.Join(names, ", "))
}

// held is a group whose health keeps its share below the estimator's.
func held(st health.Status) bool {
	return st.State == health.Degraded || (st.State == health.Healthy && st.Weight < 1)
}

// equalDelayInputs is each group's capacity in requests per second and
// the component's request rate. A group whose cost is not learned yet
// counts at the median of those that are; ok is false when none is, or
// when the rate is unknown or none.
func equalDelayInputs(groups []traffic.Group, statuses []health.Status) (capacities []float64, rate float64, ok bool) {
	rate = requestRate(groups)
	if !(rate > 0) {
		return nil, 0, false
	}
	var known []float64
	for _, st := range statuses {
		if st.CostBaseline > 0 {
			known = append(known, st.CostBaseline)
		}
	}
	if len(known) == 0 {
		return nil, 0, false
	}
	typical := stats.MedianInPlace(known)
	capacities = make([]float64, len(groups))
	for i, g := range groups {
		cost := statuses[i].CostBaseline
		if !(cost > 0) {
			cost = typical
		}
		capacities[i] = statuses[i].Capacity * g.Limit() / cost
	}
	return capacities, rate, true
}

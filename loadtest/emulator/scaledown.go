package emulator

import (
	"cmp"
	"math"
	"slices"
)

// uidStream is the stream of the pods' UIDs, apart from the others so
// that the requests and the policies draw as they did without it.
const uidStream = 0x0d1d

// scaleDownOrder is c's pods in the order its ReplicaSet deletes them when
// the Deployment shrinks, the first to go first: the ranking of Kubernetes'
// ReplicaSet controller (pkg/controller/replicaset/replica_set.go,
// getPodsToDelete, and pkg/controller/controller_utils.go,
// ActivePodsWithRanks.Less, at v1.37). A pod not yet Ready goes first; then a pod on the node with the
// most of c's pods, so a shrink spreads what is left over the nodes; then
// the one Ready for the shorter time, and the newer one, each compared by
// the base-2 logarithm of its age, so that pods of much the same age are
// told apart by their random UIDs, not by which came a second later.
func (e *Emulator) scaleDownOrder(c *component) []*replica {
	onNode := map[*node]int{}
	for _, p := range c.pods {
		onNode[p.node]++
	}
	now := e.now
	order := slices.Clone(c.pods)
	slices.SortStableFunc(order, func(a, b *replica) int {
		if ar, br := a.state == ready, b.state == ready; ar != br {
			return boolOrder(!ar)
		}
		if onNode[a.node] != onNode[b.node] {
			return boolOrder(onNode[a.node] > onNode[b.node])
		}
		if a.state == ready && e.apiTime(a.readyAt) != e.apiTime(b.readyAt) {
			return youngerFirst(now, e.apiTime(a.readyAt), e.apiTime(b.readyAt), a.uid, b.uid)
		}
		if e.apiTime(a.born) != e.apiTime(b.born) {
			return youngerFirst(now, e.apiTime(a.born), e.apiTime(b.born), a.uid, b.uid)
		}
		// Equal in every rank the controller compares: its unstable sort
		// leaves them in no particular order, drawn here by UID.
		return cmp.Compare(a.uid, b.uid)
	})
	return order
}

// apiTime is a run time as the API server keeps a pod's timestamps: whole
// seconds on the wall clock. The controller reads now to the nanosecond.
func (e *Emulator) apiTime(t float64) float64 {
	return math.Floor(e.phases.Wall+t) - e.phases.Wall
}

// youngerFirst orders two timestamps as logarithmicRankDiff does: by
// floor(log2 of the age in nanoseconds), the younger first, and within a
// rank by UID.
func youngerFirst(now, a, b float64, uidA, uidB uint64) int {
	if ra, rb := logRank(now-a), logRank(now-b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	return cmp.Compare(uidA, uidB)
}

// logRank is floor(log2(age in nanoseconds)), −1 for an age of zero or
// less.
func logRank(age float64) int64 {
	if age <= 0 {
		return -1
	}
	return int64(math.Log2(age * 1e9))
}

// boolOrder is a comparison's result where first says the first goes
// first.
func boolOrder(first bool) int {
	if first {
		return -1
	}
	return 1
}

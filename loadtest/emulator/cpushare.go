package emulator

import "math"

// wanted is the cores a pod would use without node contention: a core
// for each request in service, up to its limit. (A comparison, not
// math.Min, which does not inline on amd64 and sits on the hot path.)
func wanted(rep *replica) float64 {
	if k := float64(rep.inService.Len()); k < rep.comp.spec.CPULimit {
		return k
	}
	return rep.comp.spec.CPULimit
}

// fairShare is the most CPU any one of the node's entities gets when
// together they want more than the node's pods can have (available): each
// pod's cgroup wanting wanted cores, and each thread a neighbour keeps
// busy wanting one. The kernel's CFS gives runnable entities of equal
// weight equal CPU time, so one that wants less than an equal share gets
// what it wants and the others share what it leaves: max-min fairness,
// whose level is returned (+Inf when every entity gets what it wants).
// The entities weigh alike, as on the live loop's nodes, where every pod's
// cgroup has cgroup v1's default 1024 shares and a neighbour's thread
// weighs 1024 as a nice-0 task does; a kubelet sets a pod's shares from its
// CPU request, which weighs pods alike only where their requests are alike.
func (n *node) fairShare() float64 {
	demands, total := n.demands[:0], 0.0
	for _, x := range n.replicas {
		if w := wanted(x); w > 0 {
			demands = append(demands, w)
			total += w
		}
	}
	for busy := n.neighbour; busy > 0; busy-- {
		w := math.Min(1, busy)
		demands = append(demands, w)
		total += w
	}
	n.demands = demands
	if total <= n.available() {
		return math.Inf(1)
	}
	return maxMinLevel(demands, n.available())
}

// maxMinLevel is the level of the max-min fair split of capacity between
// demands: each demand at or below it is met, each above gets it. +Inf when
// capacity meets every demand. Progressive filling: each round meets the
// demands at or below the level and shares what they leave among the rest,
// and the level stands once a round meets no new demand (a few rounds over
// a node's handful of entities, with no sort on the emulator's hot path).
func maxMinLevel(demands []float64, capacity float64) float64 {
	level, met := 0.0, -1
	for {
		sum, count := 0.0, 0
		for _, d := range demands {
			if d <= level {
				sum += d
				count++
			}
		}
		switch count {
		case len(demands):
			return math.Inf(1)
		case met:
			return level
		}
		met = count
		// In exact arithmetic the level only rises; rounding can lower it
		// by an ulp when a demand met sits on it, which would unmeet that
		// demand and fill forever.
		next := (capacity - sum) / float64(len(demands)-count)
		if next <= level {
			return level
		}
		level = next
	}
}

// cpuWait is how a pod with k requests in service under a limit of limit
// cores, granted factor of the cores it wants, shows in its cgroup's
// counters: the fraction of the time some of its threads wait for a CPU
// (PSI's "some"), and whether its own quota throttles it. Each request is
// a thread that runs min(1, limit/k) × factor of the time it is runnable.
// The lower bound on "some" is taken, that the threads wait at the same
// moments, as they do when a quota throttles them all at once. Its own
// quota throttles it only when it wants more than its limit and the node
// gives it that: granted less, the pod runs below its quota, and the
// kernel counts the throttling (a quota above the pod's) on the cgroup
// that set it, not on the pod's.
func cpuWait(k, limit, factor float64) (waiting float64, throttled bool) {
	if k <= 0 {
		return 0, false
	}
	return 1 - math.Min(1, limit/k)*factor, k > limit && factor >= 1
}

// available is the cores the node's pods can have: its cores, or a quota
// set over its pods.
func (n *node) available() float64 {
	if n.quota > 0 {
		return math.Min(n.cores, n.quota)
	}
	return n.cores
}

package allocate

import "github.com/artt-dev/artt/traffic"

// The handover's prices are steady-state response times, read from each
// pod's service rate and the rate it would be sent. A pod that used its
// whole CPU limit over the last interval is not in a steady state: it
// served all it could, and the queue it holds, which may be seconds long
// after a burst, is in no counter the prices read. A table that sends a
// node's callers to such a pod holds them on that queue for a whole cycle,
// where least-request turns each request away from it. So while a pod the
// table would feed is full, the table is not priced and the component goes
// to its callers' own balancing, as the handover's error leans (handover.go):
// a wrong handover costs at most the network the table would have saved.
// Where the callers' own picks are blind, or their blind part alone would
// overload a slow pod, there is nothing better to hand over to, and the
// prices decide as before.

// fullUtilization is the CPU utilisation of its limit at and above which a
// pod counts as full: a pod that never idled reads a little under 1 from
// counters over a window that does not align with its busy time.
const fullUtilization = 0.98

// feedsFullPod reports whether a table of the given shares per node sends
// some to a node where a pod of the component ran at its CPU limit over the
// last interval. A pod with no known limit has none to reach, and never
// counts as full.
func feedsFullPod(shares map[string]float64, groups []traffic.Group) bool {
	for _, g := range groups {
		if shares[g.Node] <= 0 {
			continue
		}
		for _, p := range g.Replicas {
			if p.CPULimit > 0 && p.CPU/p.CPULimit >= fullUtilization {
				return true
			}
		}
	}
	return false
}

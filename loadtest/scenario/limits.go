package scenario

import (
	"fmt"
	"time"
)

// The lab simulates every request, pod and control cycle on one machine.
// These bounds keep any scenario it accepts within minutes and under 2 GB
// for one run, and each lies far above what a shipped scenario uses.
// docs/scenarios.md ("Limits") gives each with its reason.
const (
	// MaxDuration is a day of simulated time: one diurnal cycle of a trace
	// (the longest shipped scenario lasts 30 minutes).
	MaxDuration = 24 * time.Hour
	// MaxNodes is Kubernetes' largest supported cluster.
	MaxNodes = 5000
	// MaxNodeCores is above the largest machine a cloud rents (896 vCPUs);
	// it bounds a node's cores and a contention's or a quota's cores.
	MaxNodeCores = 1024
	// MaxSpeed bounds a node's speed against the reference node.
	MaxSpeed = 100
	// MaxPods bounds the pods a run can hold at once (every component's
	// maxReplicas and the gateway's replicas): each control cycle walks
	// every pod, and ARTT's allocation solves a flow over their groups.
	// The largest shipped scenario holds 76.
	MaxPods = 2000
	// MaxWorkers bounds a pod's first-come-first-served workers.
	MaxWorkers = 1024
	// MaxRate bounds the request rate at any time (requests per second).
	MaxRate = 100_000
	// MaxHistory bounds how far back a workload's history reaches: a
	// month, twice Prometheus' default retention of 15 days.
	MaxHistory = 31 * 24 * time.Hour
	// MaxTimeout bounds the client timeout.
	MaxTimeout = time.Hour
	// MinControlInterval is the shortest sample, traffic, polling, HPA or
	// outlier-detection interval: each is an event of the simulation, and a
	// cluster's controllers and scrapes run no faster than once a second.
	MinControlInterval = time.Second
	// MaxDelayMs bounds every network delay, and MaxDelayScale the factor
	// applied to them all.
	MaxDelayMs    = 60_000
	MaxDelayScale = 1000
	// MaxCallsPerRequest bounds the calls one external request expands to
	// down the call graph (a callee called twice counts twice).
	MaxCallsPerRequest = 1000
	// MaxHopsPerRun bounds a run's requests times their hops (the gateway's
	// call to the entry and every call below it): a run whose every request
	// waits in a queue holds about 130 bytes per hop, 1.3 GB at the bound.
	MaxHopsPerRun = 10_000_000
	// MaxRequests bounds the requests of all runs together: every run's
	// successful latencies are kept for the report, 8 bytes each.
	MaxRequests = 50_000_000
	// MaxFileBytes bounds a scenario file.
	MaxFileBytes = 1 << 20
	// MaxTraceBytes bounds a trace file: 64 MiB holds a month of rows a
	// second.
	MaxTraceBytes = 64 << 20
)

// CallsPerRequest counts the calls one external request makes below the
// entry, each call counted as often as it is made, stopping once the count
// passes MaxCallsPerRequest. The call graph must be free of cycles.
func (s *Scenario) CallsPerRequest() int {
	calls := map[string][]string{}
	for _, c := range s.Application.Components {
		calls[c.Name] = c.Calls
	}
	memo := map[string]int{}
	var below func(string) int
	below = func(name string) int {
		if n, ok := memo[name]; ok {
			return n
		}
		n := 0
		for _, callee := range calls[name] {
			n = min(n+1+below(callee), MaxCallsPerRequest+1)
		}
		memo[name] = n
		return n
	}
	return below(s.Application.Entry)
}

// CheckLoad refuses a workload whose runs would simulate more than the
// lab's bounds: requestsPerRun is the requests one run sends (its rate over
// the duration and the client timeout).
func (s *Scenario) CheckLoad(requestsPerRun float64) error {
	hopsEach := 1 + s.CallsPerRequest()
	total := requestsPerRun * float64(len(s.Runs))
	switch {
	case requestsPerRun*float64(hopsEach) > MaxHopsPerRun:
		return bad("workload", fmt.Sprintf("%.3g requests a run, %d hops each", requestsPerRun, hopsEach),
			fmt.Sprintf("a run may simulate at most %d hops: lower the rate or the duration", MaxHopsPerRun))
	case total > MaxRequests:
		return bad("runs", fmt.Sprintf("%d runs × %.3g requests", len(s.Runs), requestsPerRun),
			fmt.Sprintf("the runs together may send at most %d requests: fewer runs, a lower rate or a shorter duration", MaxRequests))
	}
	return nil
}

package emulator

// gRPC-Go's xDS clients (proxyless gRPC) fed by istiod, as the live loop
// runs them (grpc-go v1.84; docs/live.md):
//
//  1. Under ROUND_ROBIN, the cluster's policy is xds_wrr_locality over
//     round_robin: a locality is drawn for each request by
//     weighted_target, whose picker is wrr.NewRandom
//     (balancer/weightedtarget, internal/wrr/random.go), at random in
//     proportion to its weight among the localities with a ready pod. The
//     weights are the distribute row's where one applies; otherwise
//     istiod's own, each locality's endpoint weights summed
//     (EndpointBuilder.generate), one per pod. Inside the locality,
//     round_robin cycles from a random start.
//  2. Under LEAST_REQUEST, least_request_experimental picks by power of
//     two choices over every pod, with no locality layer: the weights are
//     dropped. weighted_round_robin comes from the client's service
//     config, also over every pod.
//  3. istiod sends gRPC clients no outlier detection, and gRPC has no
//     RANDOM or PEAK_EWMA balancer (the scenario refuses them).
//  4. A table policy's run under LEAST_REQUEST is artt-traffic with
//     --data-plane=grpc on a rule that leaves loadBalancer.simple unset:
//     it writes ROUND_ROBIN with its table and LEAST_REQUEST where it
//     lifts it, so its callers pick as in 1 while the table is in force,
//     and as in 2 once it is lifted.
//
// So where Envoy's EDF schedule spreads a locality's picks evenly in time,
// gRPC's are a random thinning of the arrivals: with one pod per locality,
// a table under gRPC is a weighted random split, and round robin without a
// table is a uniform random one.

// grpcLocality is the node whose pods a gRPC client's request to c goes to
// under ROUND_ROBIN (point 1 above), given the caller's distribute row (nil
// when none applies); ok is false when no locality in the row has a ready
// pod.
func (e *Emulator) grpcLocality(c *component, row []localityWeight) (node int, ok bool) {
	if row == nil {
		// One weight per pod: the locality of a pod drawn uniformly.
		return c.ready[e.rng.IntN(len(c.ready))].node.idx, true
	}
	total := 0
	for _, w := range row {
		if len(c.readyOn[w.node]) > 0 {
			total += int(w.weight)
		}
	}
	if total == 0 {
		return 0, false
	}
	x := e.rng.IntN(total)
	for _, w := range row {
		if len(c.readyOn[w.node]) == 0 {
			continue
		}
		if x < int(w.weight) {
			return w.node, true
		}
		x -= int(w.weight)
	}
	return 0, false // unreachable: x < total
}

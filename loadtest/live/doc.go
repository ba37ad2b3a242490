// Package live runs an artt-lab scenario on real parts on one machine: the
// live loop that judges the lab's model.
//
// Inside a network namespace of its own (so pods have addresses the API
// accepts and no traffic leaves the machine), it starts envtest's
// kube-apiserver and etcd, kube-controller-manager (EndpointSlices),
// istiod, Prometheus and artt-traffic, and plays the kubelet: each pod the
// scenario places is a real gRPC server (package backend) on the pod's
// address, inside a CPU cgroup of its own under its node's cgroup, whose
// quotas are the node's cores and the pod's limit. Callers reach their
// callees through gRPC-Go's xDS client fed by istiod, so the balancer that
// carries a run's routing is gRPC's own (round robin over istiod's
// locality weights, least request, or weighted round robin with ORCA). An
// open-loop generator (package loadgen) enters through a gRPC client of
// its own and times every request from its scheduled send time.
//
// What is emulated: a node's speed (a request's CPU work is scaled by
// 1/speed), its size (the cgroup quota), the network delay (added in user
// space by the callee, since netem is missing here) and the call graph.
// docs/live.md says which scenarios fit two cores and how noisy a run is.
package live

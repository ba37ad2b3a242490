// Package backend is the server each live pod runs: a gRPC service that,
// per request, waits out the network delay from its caller's node, spends
// the component's CPU work (scaled by 1/speed of its node), calls its
// callees in order through a gRPC client (xDS, fed by istiod, or a fixed
// endpoint list for weighted round robin), waits out the delay back, and
// answers. It exports the series artt-traffic's and artt-scaler's default
// queries read, under Istio's and cAdvisor's names: CPU from its cgroup's
// accounting, requests and their latency as Istio's sidecar reports them.
package backend

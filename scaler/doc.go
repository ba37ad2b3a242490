// Package scaler is artt-scaler's adapter between KEDA and the threshold
// core: it parses a ScaledObject's trigger metadata, reads the workload's
// request rate and CPU from Prometheus, computes the adaptive threshold with
// package threshold, and serves KEDA's external scaler gRPC contract.
//
// How the threshold reaches the HPA. In the default "normalized" metric form
// the metric value is 100·u/θ against a fixed target of 100: θ the threshold
// in percent, u the CPU the arriving requests need in percent of the ready
// pods' CPU requests. u is the measured CPU utilisation unless more requests
// arrive than are served (by more than 10%); then it is the arrivals priced
// at the CPU per request measured without such a backlog (offeredLoad), so
// it keeps growing when saturated pods' CPU cannot. With the
// trigger's metricType: Value the HPA computes
// desired = ceil(readyPods · value/100) = ceil(readyPods · u/θ), and leaves
// the replica count alone while |value/100 − 1| ≤ 0.1 (its tolerance). The
// target never changes, which is what KEDA's pull path needs: KEDA fixes the
// HPA's target when it creates the HPA. In the "utilization" form (for an
// external-push trigger) the value is u and the target θ, pushed through
// StreamMetricSpec whenever it moves.
//
// State. Each poll replays the threshold over a history read from
// Prometheus range queries (threshold.Replay), so the answer depends on the
// data, not on how long this replica has run: replicas behind one Service,
// and a restarted replica, agree. What is kept in memory per trigger is the
// parsed metadata and the last answer, shared by the calls of one poll and
// dropped when the ScaledObject stops calling.
//
// Errors. Bad metadata is InvalidArgument and names the key and the value.
// A failure to measure (Prometheus down, a query timing out) is Unavailable,
// never false or 0, so KEDA does not scale to zero on an outage and its
// fallback engages.
package scaler

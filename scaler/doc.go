// Package scaler is artt-scaler's adapter between KEDA and the metric: it
// parses a ScaledObject's trigger metadata, reads the workload's request
// rate and CPU from Prometheus, computes the metric with package
// scaler/metric, and serves KEDA's external scaler gRPC contract.
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

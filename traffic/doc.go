// Package traffic holds the plain data the traffic allocators exchange: a
// Snapshot of the cluster in (components and their calls, replicas with
// their node, readiness and measurements, nodes, node-to-node delays) and an
// Allocation out (for every downstream component and every upstream node, the
// fraction of traffic to send to each downstream node, with the reasons).
//
// The allocators themselves live in subpackages, all pure computation with no
// I/O: flow (max flow and min-cost flow), atpm (HEART's per-node load shares),
// forecast (ARTT's Holt–Kalman forecasts and bounded shifts), health
// (Healthy/Degraded/Unhealthy states), ntam (HEART's slow-link filter and
// routing), allocate (the policies: ARTT, HEART and the baselines), and istio
// (the conversion to Istio's localityLbSetting.distribute).
//
// Conventions: NaN marks a missing measurement, which every allocator
// handles by a documented rule; negative or infinite measurements are errors
// that name the field and the value.
package traffic

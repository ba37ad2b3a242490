// Package allocate holds the traffic policies, all behind traffic.Policy so
// the artt-traffic controller and artt-lab can run any of them:
//
//   - "artt": ARTT's forecasts and bounded shifts (package forecast) set the
//     group shares, health states (package health) scale Degraded groups down
//     and drop Unhealthy ones, a cut group is given back what the others
//     cannot carry at an equal delay (giveback.go), and HEART's NTAM routes
//     them.
//   - "heart": HEART's two modules as this project reads the paper: ATPM's
//     adaptive-EWMA load shares (package atpm), then NTAM (package ntam);
//     where the paper leaves a choice open, the packages document the one
//     made.
//   - "equal": what Kubernetes does by default: every upstream node spreads
//     its calls over every ready replica equally.
//   - "localization": every upstream node sends everything to the nearest
//     downstream node(s).
//   - "opttraffic": local first, up to the local group's fair share; the rest
//     spread over the groups with room left, in proportion to that room.
//   - "lata": LATA's per-replica minimum-cost flow: every upstream replica
//     sends all its traffic, every downstream replica receives an equal share,
//     cost = traffic × delay.
//
// Each policy computes one route per downstream component; components are
// independent and run on a bounded number of goroutines (Options.Parallelism),
// and the result is the same whatever the scheduling. HEART and ARTT
// remember each component's last NTAM problem and answer (memo.go): a
// reallocation after a pod or node event solves again only the components
// the event changed, and a component whose problem changed starts from its
// last routing (ntam.Problem.Previous).
//
// An ARTT call reads in the order it runs: artt.go takes the call
// (Allocate for a cycle, Protect for the fast path) and indexes the
// snapshot; pass.go says what the call learns from its measurements;
// forget.go drops what has left the cluster; plan.go plans each component,
// its forecast shares weighed by health (healthpass.go) and given back
// where the others cannot carry them (giveback.go); artt.go then routes
// the plans by NTAM and settles each handover to Envoy (handover.go).
//
// ARTT's learned state outlives its process (resume.go): State is what it
// knows of a component (the forecasts' shares per node, every group's
// health, the table-or-Envoy verdict), which artt-traffic writes beside the
// component's rule, and Resume seeds a new leader from it, so the new
// leader's first write stays within the bound of the rule in force and a
// group cut for degrading stays cut. What leaves the cluster leaves ARTT's
// state Options.ForgetAfter later.
package allocate

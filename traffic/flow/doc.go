// Package flow holds the network-flow algorithms the traffic allocators
// need: maximum flow (Dinic) to prove that a set of links can carry every
// group's traffic, and minimum-cost flow (successive shortest paths with
// Johnson potentials) to route it over the cheapest links. Capacities,
// supplies and costs are real numbers (fractions of traffic, milliseconds);
// amounts below Epsilon count as zero.
//
// No maintained Go module offers minimum-cost flow, and gonum's MaxFlowDinic
// works on its graph interfaces without returning the flow on each arc, so
// both are written here; the tests check them against gonum's MaxFlowDinic
// and its simplex LP solver.
package flow

// Epsilon is the amount of flow, capacity or cost treated as zero.
const Epsilon = 1e-12

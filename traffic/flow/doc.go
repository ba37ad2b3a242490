// Package flow holds the network-flow algorithms the traffic allocators
// need: maximum flow (Dinic) to prove that a set of links can carry every
// group's traffic, and minimum-cost flow (the primal network simplex,
// simplex.go) to route it over the cheapest links, on a general network from
// a source to a sink (MinCostFlow) or from supplies straight to demands
// (Transport, the form the allocators' transportation problems take, and
// TransportFrom, which starts from the answer to a similar problem, as a
// periodic cycle has). Capacities, supplies and costs are real numbers
// (fractions of traffic, milliseconds); amounts below Epsilon count as zero.
//
// No maintained Go module offers minimum-cost flow, and gonum's MaxFlowDinic
// works on its graph interfaces without returning the flow on each arc, so
// both are written here. The tests check maximum flow against gonum's simplex
// LP solver and a minimum cut, and the network simplex against the successive
// shortest paths solver it replaced (kept in the tests as the oracle), on
// random networks and under fuzzing; make bench times the two side by side.
package flow

// Epsilon is the amount of flow, capacity or cost treated as zero.
const Epsilon = 1e-12

// Package graph holds the two graphs ARTT's cores share about a cluster:
// the calls between its components and the delays between its nodes. The
// traffic core (package traffic) and placement (package placement/larp)
// both read them, and neither imports the other for them.
package graph

// Call is an edge of the call graph.
type Call struct {
	// From calls To.
	From, To string
	// Rate is the measured request rate of this edge (requests per second),
	// NaN when unknown; it weighs the upstream components of a downstream one.
	Rate float64
}

// Delay is a measured one-way delay from one node to another.
type Delay struct {
	From, To string
	// Ms is the delay in milliseconds.
	Ms float64
}

package queueing_test

import (
	"fmt"

	"github.com/artt-dev/artt/traffic/queueing"
)

// Two pods serving 100 requests per second each, at 150 requests per
// second: one queue pooled over both, against each pod its own queue at
// half the load (what a static split gives).
func ExampleMeanWait() {
	pooled := queueing.MeanWait(2, 150, 100)
	split := queueing.MeanWait(1, 75, 100)
	fmt.Printf("pooled %.2f ms, split %.2f ms\n", 1000*pooled, 1000*split)
	// Output: pooled 12.86 ms, split 30.00 ms
}

// Erlang's C formula: the chance a request waits, with four pods each busy
// 75% of the time, against one pod at the same utilisation.
func ExampleErlangC() {
	fmt.Printf("4 pods: %.3f, 1 pod: %.3f\n", queueing.ErlangC(4, 3), queueing.ErlangC(1, 0.75))
	// Output: 4 pods: 0.509, 1 pod: 0.750
}

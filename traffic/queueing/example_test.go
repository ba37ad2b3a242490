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

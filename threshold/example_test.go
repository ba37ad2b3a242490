package threshold_test

import (
	"fmt"

	"github.com/artt-dev/artt/threshold"
)

// A workload whose request rate steps up gets a lower threshold at the first
// sample that shows the step, so the HPA asks for replicas with headroom
// for what arrives while they start; steady demand rests at the maximum.
// Here demand rises by half in the newest sample: the climb, carried on for
// the lead time (two samples), is a third of the newest rate, and
// θ = 100 ÷ (1 + 1/3) = 75.
func ExampleReplay() {
	cfg := threshold.DefaultConfig() // thresholds between 50% and 80%, lead 2 samples
	demand := make([]float64, 120)   // requests per second, one sample per 15 s
	for i := range demand {
		demand[i] = 200
	}
	steady, err := threshold.Replay(cfg, demand, nil, 40)
	if err != nil {
		fmt.Println(err)
		return
	}
	demand[len(demand)-1] = 300
	stepped, err := threshold.Replay(cfg, demand, nil, 40)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("steady: threshold %.0f%%; after the step: threshold %.0f%%, climb %.2f\n", steady.Threshold, stepped.Threshold, stepped.NormalizedTrend)
	// Output: steady: threshold 80%; after the step: threshold 75%, climb 0.33
}

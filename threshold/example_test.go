package threshold_test

import (
	"fmt"

	"github.com/artt-dev/artt/threshold"
)

// A workload whose request rate climbs steadily gets a lower threshold, so
// the HPA adds replicas before utilisation reaches the usual target. Here
// demand climbs about 20% across the 40-sample window: θ = 80 ÷ 1.2.
func ExampleReplay() {
	cfg := threshold.DefaultConfig() // thresholds between 50% and 80%
	demand := make([]float64, 120)   // requests per second, one sample per 15 s
	for i := range demand {
		demand[i] = 200 + 2*float64(i)
	}
	r, err := threshold.Replay(cfg, demand, nil, 40)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("threshold %.0f%%, trend %.1f rps/sample, trend weight %.2f\n", r.Threshold, r.Trend, r.TrendWeight)
	// Output: threshold 67%, trend 2.0 rps/sample, trend weight 1.00
}

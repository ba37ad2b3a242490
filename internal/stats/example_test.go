package stats_test

import (
	"fmt"

	"github.com/artt-dev/artt/internal/stats"
)

// A heap sampled each minute, growing by about 2 KiB a minute under noise.
func ExampleSlope() {
	minutes := []float64{0, 1, 2, 3, 4, 5}
	heapKiB := []float64{1000, 1003, 1003, 1007, 1008, 1010}
	fmt.Printf("%.1f KiB per minute\n", stats.Slope(minutes, heapKiB))
	// Output: 2.0 KiB per minute
}

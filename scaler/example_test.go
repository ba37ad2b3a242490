package scaler_test

import (
	"fmt"

	"github.com/artt-dev/artt/scaler"
)

// A ScaledObject's trigger metadata as KEDA hands it to artt-scaler, and
// what the scaler makes of it; a bad value is refused by name.
func ExampleParseMetadata() {
	spec, err := scaler.ParseMetadata("shop", "web", map[string]string{
		"workload": "web", "minThreshold": "50", "maxThreshold": "80", "step": "15s", "window": "40",
	}, "http://prometheus.monitoring:9090")
	if err != nil {
		panic(err)
	}
	fmt.Println(spec.Workload, spec.PrometheusAddress, spec.Step, spec.Window, spec.Threshold.MinThreshold, spec.Threshold.MaxThreshold)

	_, err = scaler.ParseMetadata("shop", "web", map[string]string{"workload": "web", "window": "-3"}, "http://prometheus.monitoring:9090")
	fmt.Println(err)
	// Output:
	// web http://prometheus.monitoring:9090 15s 40 50 80
	// metadata "window" = "-3": must be in [5, 2400]
}

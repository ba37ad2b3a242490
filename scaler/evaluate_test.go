package scaler

import (
	"math"
	"strings"
	"testing"
)

// Measurements whose utilisation overflows a float are refused with both
// values named, rather than reported to the HPA as +Inf.
func TestOutOfRangeMeasurementsAreRefused(t *testing.T) {
	spec, err := ParseMetadata("shop", "so", map[string]string{"workload": "web", "window": "5", "history": "5"}, "http://prometheus.monitoring:9090")
	if err != nil {
		t.Fatal(err)
	}
	demand := []float64{10, 10, 10, 10, 10, 10}
	for _, tc := range []struct {
		name       string
		cpu        float64
		request    float64
		wantInText string
	}{
		{"usage near the largest float", math.MaxFloat64, 100, "1.7976931348623157e+308"},
		{"request near the smallest float", 2, 1e-308, "1e-308"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpu := []float64{1, 1, 1, 1, 1, tc.cpu}
			_, err := Evaluate(spec, Measurements{Demand: demand, CPU: cpu, CPURequest: tc.request})
			if err == nil || !strings.Contains(err.Error(), tc.wantInText) {
				t.Fatalf("error %v, want one naming %s", err, tc.wantInText)
			}
		})
	}
	ev, err := Evaluate(spec, Measurements{Demand: demand, CPU: []float64{1, 1, 1, 1, 1, 1e300}, CPURequest: 1})
	if err != nil {
		t.Fatalf("a finite utilisation of 1e302%% is refused: %v", err)
	}
	if got := ev.MetricValue(FormUtilization); got != 1e302 {
		t.Errorf("utilisation %v, want 1e302", got)
	}
}

// The protocol's integer fields hold a metric to int64's range instead of
// an undefined conversion.
func TestWholeMetricHoldsToInt64(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want int64
	}{
		{74.5, 75},
		{0.4, 0},
		{1e302, math.MaxInt64},
		{math.Inf(1), math.MaxInt64},
		{-1e302, math.MinInt64},
		{math.NaN(), 0},
	} {
		if got := wholeMetric(tc.v); got != tc.want {
			t.Errorf("wholeMetric(%v) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

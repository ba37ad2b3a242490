package loadtest

import (
	"fmt"
	"math"
	"slices"

	"github.com/artt-dev/artt/scaler"
)

// constantCost is the CPU seconds per request the profile assumes.
const constantCost = 0.01

// ThresholdProfile is the distribution of the threshold artt-scaler would
// serve, poll by poll, over a demand series.
type ThresholdProfile struct {
	// Polls is how many polls were replayed.
	Polls int
	// Mean and the quantiles P5…P95 of the threshold, in percent.
	Mean, P5, P25, P50, P75, P95 float64
	// AtMin and AtMax are the fractions of polls at the bounds.
	AtMin, AtMax float64
	// Values are the thresholds, poll by poll.
	Values []float64
}

// ProfileThreshold replays the threshold as artt-scaler computes it at each
// poll: the last window + history − 1 samples of demand (one sample per
// element of demand), through the trigger metadata's own parser and
// scaler.Evaluate, what artt-scaler's GetMetrics calls. It polls every
// `every` samples from the first full history on. The CPU used is taken
// proportional to demand (a constant cost per request), so only the demand
// moves the threshold.
func ProfileThreshold(demand []float64, metadata map[string]string, every int) (ThresholdProfile, error) {
	if every < 1 {
		return ThresholdProfile{}, fmt.Errorf("every = %d: must be at least 1", every)
	}
	md := map[string]string{"prometheusAddress": "http://profile.invalid:9090", "workload": "profile"}
	for k, v := range metadata {
		md[k] = v
	}
	spec, err := scaler.ParseMetadata("profile", "profile", md, "")
	if err != nil {
		return ThresholdProfile{}, err
	}
	points := spec.Points()
	if len(demand) < points {
		return ThresholdProfile{}, fmt.Errorf("the series has %d samples; one poll needs window + history − 1 = %d", len(demand), points)
	}
	var p ThresholdProfile
	for end := points; end <= len(demand); end += every {
		m := scaler.Measurements{Demand: demand[end-points : end], CPU: make([]float64, points), CPURequest: 1}
		for i, d := range m.Demand {
			m.CPU[i] = constantCost * d
		}
		ev, err := scaler.Evaluate(spec, m)
		if err != nil {
			return ThresholdProfile{}, err
		}
		p.Values = append(p.Values, ev.Threshold.Threshold)
	}
	p.Polls = len(p.Values)
	sorted := slices.Clone(p.Values)
	slices.Sort(sorted)
	q := func(f float64) float64 { return sorted[min(int(f*float64(len(sorted))), len(sorted)-1)] }
	p.P5, p.P25, p.P50, p.P75, p.P95 = q(0.05), q(0.25), q(0.5), q(0.75), q(0.95)
	lo, hi := spec.Threshold.MinThreshold, spec.Threshold.MaxThreshold
	for _, v := range p.Values {
		p.Mean += v / float64(p.Polls)
		if math.Abs(v-lo) < 1e-9 {
			p.AtMin++
		}
		if math.Abs(v-hi) < 1e-9 {
			p.AtMax++
		}
	}
	p.AtMin /= float64(p.Polls)
	p.AtMax /= float64(p.Polls)
	return p, nil
}

package loadtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/artt-dev/artt/scaler/metric"
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
// metric.Evaluate, what artt-scaler's GetMetrics calls. It polls every
// `every` samples from the first full history on. The CPU used is taken
// proportional to demand (a constant cost per request), so only the demand
// moves the threshold.
func ProfileThreshold(demand []float64, metadata map[string]string, every int) (ThresholdProfile, error) {
	if every < 1 {
		return ThresholdProfile{}, fmt.Errorf("every = %d: must be at least 1", every)
	}
	spec, err := profileSpec(metadata)
	if err != nil {
		return ThresholdProfile{}, err
	}
	points := spec.Points()
	if len(demand) < points {
		return ThresholdProfile{}, fmt.Errorf("the series has %d samples; one poll needs window + history − 1 = %d", len(demand), points)
	}
	var p ThresholdProfile
	for end := points; end <= len(demand); end += every {
		ev, err := evaluateAt(spec, demand, end)
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

// profileSpec parses the trigger metadata over the profile's defaults.
func profileSpec(metadata map[string]string) (metric.Settings, error) {
	return metric.ParseSettings(metadata)
}

// evaluateAt is one poll whose newest sample is demand[end−1]: the points
// before it, served as they arrive, at a constant CPU per request.
func evaluateAt(spec metric.Settings, demand []float64, end int) (metric.Evaluation, error) {
	points := spec.Points()
	m := metric.Measurements{Demand: demand[end-points : end], CPU: make([]float64, points), CPURequest: 1}
	for i, d := range m.Demand {
		m.CPU[i] = constantCost * d
	}
	return metric.Evaluate(spec, m)
}

// ThresholdAlong is the threshold artt-scaler would serve at each poll whose
// newest sample is from … to (indices into demand), as ProfileThreshold
// computes it.
func ThresholdAlong(demand []float64, metadata map[string]string, from, to int) ([]float64, error) {
	spec, err := profileSpec(metadata)
	if err != nil {
		return nil, err
	}
	points := spec.Points()
	if from < points-1 || to >= len(demand) || from > to {
		return nil, fmt.Errorf("polls from sample %d to %d: a poll needs window + history − 1 = %d samples, the series has %d", from, to, points, len(demand))
	}
	var out []float64
	for end := from + 1; end <= to+1; end++ {
		ev, err := evaluateAt(spec, demand, end)
		if err != nil {
			return nil, err
		}
		out = append(out, ev.Threshold.Threshold)
	}
	return out, nil
}

// Shape is a synthetic demand series for ThresholdAlong: Change is the index
// of the first sample that differs from the level before it.
type Shape struct {
	Demand []float64
	Change int
}

// SyntheticDemand is 100 requests per second with 3% Gaussian noise (a
// seeded PCG, so the series repeats) for history samples, then a step to
// factor × 100 held to the end ("step"), or a climb of factor × 100 spread
// evenly over rampSamples and held ("ramp"); after samples more in all.
func SyntheticDemand(kind string, factor float64, history, rampSamples, after int) (Shape, error) {
	if kind != "step" && kind != "ramp" {
		return Shape{}, fmt.Errorf("shape %q: must be step or ramp", kind)
	}
	if !(factor > 0) || math.IsInf(factor, 0) {
		return Shape{}, fmt.Errorf("factor = %v: must be a number above 0", factor)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := history + after
	s := Shape{Demand: make([]float64, n), Change: history}
	for i := range s.Demand {
		level := 100.0
		switch {
		case i < history:
		case kind == "step":
			level = 100 * factor
		default:
			level = 100 + 100*(factor-1)*math.Min(1, float64(i-history+1)/float64(max(rampSamples, 1)))
		}
		s.Demand[i] = level * (1 + 0.03*rng.NormFloat64())
	}
	return s, nil
}

// Polls shown around a synthetic shape: from before its first changed
// sample to well after, a ramp spread over twelve minutes of 15 s samples.
const (
	shapeBefore      = 2
	shapeAfter       = 20
	shapeRampSamples = 48
)

// ShapeProfile is θ poll by poll around a synthetic step or ramp.
type ShapeProfile struct {
	// Offsets are the polls' newest samples counted from the first changed
	// one; Demand their demand.
	Offsets []int
	Demand  []float64
	// Thresholds holds, per normalisation asked, θ at each poll.
	Thresholds [][]float64
}

// ThresholdAroundShape replays θ at every poll around a SyntheticDemand step
// or ramp to factor ×, once per normalisation (metadata's normalization is
// overridden), with a full poll's history before the change.
func ThresholdAroundShape(kind string, factor float64, normalizations []string, metadata map[string]string) (ShapeProfile, error) {
	spec, err := profileSpec(metadata)
	if err != nil {
		return ShapeProfile{}, err
	}
	after := shapeAfter + 1
	if kind == "ramp" {
		after += shapeRampSamples
	}
	s, err := SyntheticDemand(kind, factor, spec.Points()+shapeBefore, shapeRampSamples, after)
	if err != nil {
		return ShapeProfile{}, err
	}
	from, to := s.Change-shapeBefore, len(s.Demand)-1
	p := ShapeProfile{Demand: s.Demand[from : to+1]}
	for i := from; i <= to; i++ {
		p.Offsets = append(p.Offsets, i-s.Change)
	}
	md := make(map[string]string, len(metadata)+1)
	for k, v := range metadata {
		md[k] = v
	}
	for _, n := range normalizations {
		md["normalization"] = n
		thetas, err := ThresholdAlong(s.Demand, md, from, to)
		if err != nil {
			return ShapeProfile{}, fmt.Errorf("normalization %s: %w", n, err)
		}
		p.Thresholds = append(p.Thresholds, thetas)
	}
	return p, nil
}

package outcome

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/internal/stats"
)

// Result is one run's outcome. Latencies are of successful external
// requests that started after the warm-up; failures are timeouts (slower
// than the client timeout, or unanswered at the end) and errors (no
// endpoint, or a pod that crashed while holding the request).
type Result struct {
	Scenario, Run string
	Seed          uint64
	// Routing and Autoscaling are the run's policies; Frontier marks a run
	// of a sweep (of hpa-cpu, kpa, keda-rps or an oracle) that other
	// autoscalers are judged against, Sweep names that sweep, Floor marks
	// the run at maxReplicas throughout.
	Routing, Autoscaling string
	Frontier, Floor      bool
	Sweep                string
	// Capacity is, per step up in a steps workload and autoscaled
	// component, how soon the ready pods covered the new demand.
	Capacity []StepCapacity
	// Timeline is, for the same steps, when each stage of the autoscaling
	// pipeline first saw each (for the live loop's comparison; not in
	// the report's files).
	Timeline []StepTimeline `json:"-"`

	Requests, Succeeded, Timeouts, Errors int64
	SuccessRate                           float64
	MeanMs, P50Ms, P90Ms, P99Ms, P999Ms   float64
	// LatenciesMs are the successful latencies, sorted (for the CDF).
	LatenciesMs []float64

	Pods []PodResult
	// Utilisation over pods that lived at least one sample interval in the
	// measured period: mean, max and min of their mean CPU utilisation (CPU
	// ÷ limit) over every component's pods.
	UtilMean, UtilMax, UtilMin float64
	// UtilGap and UtilRatio are the worst component's max − min and max ÷
	// mean of its pods' utilisation: the balance across one component's
	// replicas, which HEART's claim is about (pods of different components
	// differ by design).
	UtilGap, UtilRatio float64
	// Components is that balance per component, in the scenario's order.
	Components []ComponentBalance
	// PodMinSeconds is the shortest life a pod needed to count in the
	// utilisation figures (one sample interval).
	PodMinSeconds  float64
	ReplicaSeconds float64
	ScalingEvents  int
	Allocations    int
	// Protections counts the allocations the fast path installed between
	// cycles because a group's health changed.
	Protections int

	Series []Point
	Notes  []string

	// CrossNodeFraction is the fraction of calls (gateway to entry
	// included) whose caller and callee were on different nodes.
	CrossNodeFraction float64
	// NetworkMs is the mean time a measured request spent on the network,
	// over every hop both ways.
	NetworkMs float64
	// AfterEvents counts, per injected event, the requests started in the
	// minute after it and those of them that did not succeed.
	AfterEvents []EventImpact
	// LoadSteps are the changes of the offered load the time plots mark
	// (the scenario's, not a measurement: kept out of report.json).
	LoadSteps []LoadStep `json:"-"`

	// Events and Hops count the simulation's work, for throughput figures.
	Events, Hops int64
}

// ComponentBalance is how evenly a component's pods were loaded: max − min
// and max ÷ mean of their mean CPU utilisation (0 and 1 with one pod).
type ComponentBalance struct {
	Component  string
	Gap, Ratio float64
}

// PodResult is one pod's measured life.
type PodResult struct {
	Name, Component, Node string
	Seconds               float64
	Utilization           float64
}

// Point is one sample interval.
type Point struct {
	T        float64
	Rate     float64 // external requests started per second
	P99Ms    float64 // of successful requests answered in the interval (NaN if none)
	Timeouts int64
	Replicas map[string]int
	// Threshold is each autoscaled component's last threshold (percent).
	Threshold map[string]float64
	// Utilization is each ready pod's CPU utilisation in the interval.
	Utilization map[string]float64
}

// SummarizeLatencies sorts LatenciesMs and sets the mean and the
// quantiles from them (NaN when no request succeeded).
func (r *Result) SummarizeLatencies() {
	slices.Sort(r.LatenciesMs)
	n := len(r.LatenciesMs)
	if n == 0 {
		r.MeanMs, r.P50Ms, r.P90Ms, r.P99Ms, r.P999Ms = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return
	}
	sum := 0.0
	for _, v := range r.LatenciesMs {
		sum += v
	}
	r.MeanMs = sum / float64(n)
	r.P50Ms = stats.Quantile(r.LatenciesMs, 0.5)
	r.P90Ms = stats.Quantile(r.LatenciesMs, 0.9)
	r.P99Ms = stats.Quantile(r.LatenciesMs, 0.99)
	r.P999Ms = stats.Quantile(r.LatenciesMs, 0.999)
	summarizeEvents(r.AfterEvents)
}

// SummarizePods sets the utilisation figures from Pods: the mean, max and
// min over pods that lived at least minLife seconds, and the balance of
// each of components (in that order) and the worst of them.
func (r *Result) SummarizePods(components []string, minLife float64) {
	r.PodMinSeconds = minLife
	r.UtilMin, r.UtilMax = math.Inf(1), math.Inf(-1)
	var utilSum float64
	var counted int
	perComponent := make([][]float64, len(components))
	for _, p := range r.Pods {
		i := slices.Index(components, p.Component)
		if p.Seconds < minLife || i < 0 {
			continue
		}
		utilSum += p.Utilization
		counted++
		r.UtilMin = math.Min(r.UtilMin, p.Utilization)
		r.UtilMax = math.Max(r.UtilMax, p.Utilization)
		perComponent[i] = append(perComponent[i], p.Utilization)
	}
	if counted > 0 {
		r.UtilMean = utilSum / float64(counted)
	} else {
		r.UtilMin, r.UtilMax = math.NaN(), math.NaN()
	}
	r.Components, r.UtilGap, r.UtilRatio = balance(components, perComponent)
}

// balance is each component's max − min and max ÷ mean of its pods'
// utilisations, and the worst of each over the components (NaN when no
// pod was measured).
func balance(comps []string, utils [][]float64) (per []ComponentBalance, worstGap, worstRatio float64) {
	worstGap, worstRatio = math.NaN(), math.NaN()
	for i, us := range utils {
		if len(us) == 0 {
			continue
		}
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, u := range us {
			lo, hi, sum = math.Min(lo, u), math.Max(hi, u), sum+u
		}
		b := ComponentBalance{Component: comps[i], Gap: hi - lo, Ratio: 1}
		if mean := sum / float64(len(us)); mean > 0 {
			b.Ratio = hi / mean
		}
		per = append(per, b)
		if math.IsNaN(worstGap) || b.Gap > worstGap {
			worstGap = b.Gap
		}
		if math.IsNaN(worstRatio) || b.Ratio > worstRatio {
			worstRatio = b.Ratio
		}
	}
	return per, worstGap, worstRatio
}

package scaler

import (
	"fmt"
	"math"

	"github.com/artt-dev/artt/threshold"
)

// Measurements are what one poll reads for a ScaledObject. artt-scaler
// fills them from Prometheus; artt-lab fills them from its emulator. Both
// then call Evaluate.
type Measurements struct {
	// Demand is the workload's request rate (requests per second), one
	// sample per Spec.Step, oldest first, ending now; NaN where missing.
	Demand []float64
	// CPU is the workload's CPU usage (cores) at the same instants.
	CPU []float64
	// CPURequest is the sum of the CPU requests (cores) of the workload's pods now.
	CPURequest float64
}

// Evaluation is the answer for one poll.
type Evaluation struct {
	// Utilization is CPU usage now as a percentage of the CPU requested.
	Utilization float64
	// RequestRate is the request rate now.
	RequestRate float64
	// Threshold is the adaptive threshold with its parts.
	Threshold threshold.Result
	// Active reports RequestRate above the activation request rate.
	Active bool
}

// MetricValue is what the HPA receives for the Spec's metric form.
func (e Evaluation) MetricValue(form MetricForm) float64 {
	if form == FormUtilization {
		return e.Utilization
	}
	return 100 * e.Utilization / e.Threshold.Threshold
}

// MetricTarget is the HPA target for the Spec's metric form.
func (e Evaluation) MetricTarget(form MetricForm) float64 {
	if form == FormUtilization {
		return e.Threshold.Threshold
	}
	return normalizedTarget
}

// normalizedTarget is the fixed target of FormNormalized: a value of 100
// means utilisation equals the threshold.
const normalizedTarget = 100

// ErrNoCPURequest reports traffic to a workload whose CPU requests are
// unknown, so its utilisation cannot be computed.
var ErrNoCPURequest = fmt.Errorf("the workload receives requests but its CPU request is unknown (is kube-state-metrics scraped, and do its pods request CPU?)")

// Evaluate computes the threshold from the demand history and compares the
// current utilisation with it. It does no I/O.
func Evaluate(spec Spec, m Measurements) (Evaluation, error) {
	if len(m.CPU) != len(m.Demand) {
		return Evaluation{}, fmt.Errorf("CPU has %d samples, demand %d: they must be aligned", len(m.CPU), len(m.Demand))
	}
	cost := make([]float64, len(m.Demand))
	for i, d := range m.Demand {
		cost[i] = math.NaN()
		if d > 0 && m.CPU[i] >= 0 {
			cost[i] = m.CPU[i] / d
		}
	}
	res, err := threshold.Replay(spec.Threshold, m.Demand, cost, spec.Window)
	if err != nil {
		return Evaluation{}, err
	}
	e := Evaluation{
		Threshold:   res,
		RequestRate: newest(m.Demand),
	}
	cpu := newest(m.CPU)
	switch {
	case m.CPURequest > 0 && !math.IsInf(m.CPURequest, 0):
		e.Utilization = 100 * cpu / m.CPURequest
	case e.RequestRate > 0:
		return Evaluation{}, ErrNoCPURequest
	}
	// A CPU sample near the largest float, or a request near the smallest,
	// overflows the percentage: say so rather than hand the HPA +Inf.
	for _, form := range []MetricForm{FormUtilization, FormNormalized} {
		if v := e.MetricValue(form); math.IsInf(v, 0) || math.IsNaN(v) {
			return Evaluation{}, fmt.Errorf("CPU usage %v cores over a CPU request of %v cores makes the %s metric %v: the measurements are out of range", cpu, m.CPURequest, form, v)
		}
	}
	e.Active = e.RequestRate > spec.ActivationRequestRate
	return e, nil
}

// newest returns the last sample, or 0 when it is missing: a sum over no
// series means nothing was measured now, which for a rate is no traffic.
func newest(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	x := xs[len(xs)-1]
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0
	}
	return x
}

package metric

import (
	"fmt"
	"math"
	"slices"

	"github.com/artt-dev/artt/threshold"
)

// Measurements are what one poll reads for a ScaledObject. artt-scaler
// fills them from Prometheus; artt-lab fills them from its emulator. Both
// then call Evaluate.
type Measurements struct {
	// Demand is the workload's request rate (requests per second), one
	// sample per Settings.Step, oldest first, ending now; NaN where missing.
	Demand []float64
	// Arrivals is the rate of requests that reach the workload (requests per
	// second) at the same instants, counted on arrival, so it keeps growing
	// while saturated pods serve no more; nil, or NaN where missing, when
	// unknown: Demand then stands in.
	Arrivals []float64
	// CPU is the workload's CPU usage (cores) at the same instants.
	CPU []float64
	// CPURequest is the sum of the CPU requests (cores) of the workload's pods now.
	CPURequest float64
	// PodCPURequest is one of those pods' CPU request (cores), read for
	// the pods form only (0 otherwise).
	PodCPURequest float64
	// Calendar is the offered rate's history for the normalization
	// "calendar": Settings.Calendar.Points() samples, one per
	// Calendar.Step, oldest first, ending now; NaN where missing. nil
	// otherwise.
	Calendar []float64
}

// Evaluation is the answer for one poll.
type Evaluation struct {
	// Utilization is CPU usage now as a percentage of the CPU requested.
	Utilization float64
	// OfferedUtilization is the utilisation the arriving requests would
	// cause at the measured CPU per request: Utilization × arrivals ÷
	// served, never below Utilization but while a backlog drains (see
	// drainingUtilization). It is what the metric compares with
	// the threshold (Utilization when Settings.OfferedLoad is off).
	OfferedUtilization float64
	// RequestRate is the request rate now; ArrivalRate the arrival rate
	// (RequestRate when arrivals are unknown).
	RequestRate, ArrivalRate float64
	// Threshold is the adaptive threshold with its parts.
	Threshold threshold.Result
	// Active reports RequestRate above the activation request rate.
	Active bool
	// Pods is the arriving requests' CPU in pods' worth at the threshold:
	// the pods form's value (NaN in the other forms).
	Pods float64
}

// MetricValue is what the HPA receives in a metric form.
func (e Evaluation) MetricValue(form Form) float64 {
	switch form {
	case FormUtilization:
		return e.OfferedUtilization
	case FormPods:
		return e.Pods
	}
	return 100 * e.OfferedUtilization / e.Threshold.Threshold
}

// MetricTarget is the HPA target in a metric form.
func (e Evaluation) MetricTarget(form Form) float64 {
	switch form {
	case FormUtilization:
		return e.Threshold.Threshold
	case FormPods:
		return PodsTarget
	}
	return NormalizedTarget
}

// NormalizedTarget is the fixed target of FormNormalized: a value of 100
// means utilisation equals the threshold.
const NormalizedTarget = 100

// PodsTarget is the fixed AverageValue target of FormPods: one pod.
const PodsTarget = 1

// ErrNoCPURequest reports traffic to a workload whose CPU requests are
// unknown, so its utilisation cannot be computed.
var ErrNoCPURequest = fmt.Errorf("the workload receives requests but its CPU request is unknown (is kube-state-metrics scraped, and do its pods request CPU?)")

// ErrNoPodCPURequest reports, in the pods form, traffic to a workload
// whose pods' CPU request podCPURequestQuery does not find.
var ErrNoPodCPURequest = fmt.Errorf("metricForm pods: the workload receives requests but podCPURequestQuery finds no ready pod's CPU request (is kube-state-metrics scraped, and do its pods request CPU?)")

// Evaluate computes the threshold from the demand history and compares the
// current utilisation with it. It does no I/O.
func Evaluate(settings Settings, m Measurements) (Evaluation, error) {
	if len(m.CPU) != len(m.Demand) {
		return Evaluation{}, fmt.Errorf("CPU has %d samples, demand %d: they must be aligned", len(m.CPU), len(m.Demand))
	}
	if m.Arrivals != nil && len(m.Arrivals) != len(m.Demand) {
		return Evaluation{}, fmt.Errorf("arrivals have %d samples, demand %d: they must be aligned", len(m.Arrivals), len(m.Demand))
	}
	cost := make([]float64, len(m.Demand))
	for i, d := range m.Demand {
		cost[i] = math.NaN()
		if d > 0 && m.CPU[i] >= 0 {
			cost[i] = m.CPU[i] / d
		}
	}
	offered := m.Demand
	if settings.OfferedLoad {
		offered = arrivalsOrServed(m)
	}
	res, err := threshold.Replay(settings.Threshold, offered, cost, settings.Window)
	if err != nil {
		return Evaluation{}, err
	}
	e := Evaluation{
		RequestRate: newest(m.Demand),
		ArrivalRate: newest(offered),
	}
	e.Threshold = calendarThreshold(settings, res, m.Calendar, e.ArrivalRate)
	cpu := newest(m.CPU)
	switch {
	case m.CPURequest > 0 && !math.IsInf(m.CPURequest, 0):
		e.Utilization = 100 * cpu / m.CPURequest
	case e.RequestRate > 0:
		return Evaluation{}, ErrNoCPURequest
	}
	e.OfferedUtilization = e.Utilization
	if settings.OfferedLoad {
		e.OfferedUtilization = offeredUtilization(e, m, offered, settings.Window)
	}
	e.Pods = math.NaN()
	if settings.Form == FormPods {
		if e.Pods, err = podsWorth(e, m); err != nil {
			return Evaluation{}, err
		}
	}
	// A CPU sample near the largest float, or a request near the smallest,
	// overflows the percentage: say so rather than hand the HPA +Inf.
	for _, form := range []Form{FormUtilization, FormNormalized, settings.Form} {
		if v := e.MetricValue(form); math.IsInf(v, 0) || math.IsNaN(v) {
			return Evaluation{}, fmt.Errorf("CPU usage %v cores over a CPU request of %v cores makes the %s metric %v: the measurements are out of range", cpu, m.CPURequest, form, v)
		}
	}
	e.Active = e.RequestRate > settings.ActivationRequestRate
	return e, nil
}

// podsWorth is the arriving requests' CPU (cores) over θ of one pod's CPU
// request: the pods the demand needs at the threshold. It is 0 with no
// ready pod and no request (the other forms' utilisation is 0 then too).
func podsWorth(e Evaluation, m Measurements) (float64, error) {
	if m.CPURequest <= 0 || math.IsInf(m.CPURequest, 0) {
		return 0, nil
	}
	if !(m.PodCPURequest > 0) || math.IsInf(m.PodCPURequest, 0) {
		if e.RequestRate > 0 {
			return 0, ErrNoPodCPURequest
		}
		return 0, nil
	}
	cores := e.OfferedUtilization / 100 * m.CPURequest
	return cores / (e.Threshold.Threshold / 100 * m.PodCPURequest), nil
}

// arrivalsOrServed is the arrival rate where it was measured and the served
// rate elsewhere (the arrivals themselves when measured throughout).
func arrivalsOrServed(m Measurements) []float64 {
	if m.Arrivals == nil {
		return m.Demand
	}
	if !slices.ContainsFunc(m.Arrivals, func(a float64) bool { return !isFiniteNonNegative(a) }) {
		return m.Arrivals
	}
	out := make([]float64, len(m.Demand))
	for i, a := range m.Arrivals {
		out[i] = a
		if !isFiniteNonNegative(a) {
			out[i] = m.Demand[i]
		}
	}
	return out
}

// offeredUtilization is the CPU the arriving requests need, in percent of
// the CPU requested: arrivals now × the CPU per request of the newest sample
// (within the window) where at most backlogTolerance more arrived than were
// served. The CPU per request of a backlog's samples is not used: a pod
// waiting on a saturated callee completes fewer requests than it starts, so
// its CPU over its completions overstates its cost. The newest such sample
// is the cost closest to now (CPU and requests are rates over the same
// interval, so one sample prices a request); a mean over the window would
// hold a cost the workload has left for as long as the window. While
// arrivals stay within the tolerance of what is served there is no backlog,
// and the measured utilisation stands, or, while pods drain a backlog, the
// part of it drainingUtilization keeps.
func offeredUtilization(e Evaluation, m Measurements, arrivals []float64, window int) float64 {
	if e.RequestRate > (1+backlogTolerance)*e.ArrivalRate {
		return drainingUtilization(e)
	}
	if e.ArrivalRate <= (1+backlogTolerance)*e.RequestRate || !(m.CPURequest > 0) || math.IsInf(m.CPURequest, 0) {
		return e.Utilization
	}
	for i := len(m.Demand) - 1; i >= max(0, len(m.Demand)-window); i-- {
		served, arrived, cpu := m.Demand[i], arrivals[i], m.CPU[i]
		if served > 0 && !math.IsInf(served, 0) && isFiniteNonNegative(arrived) && arrived <= (1+backlogTolerance)*served && isFiniteNonNegative(cpu) {
			return math.Max(e.Utilization, 100*e.ArrivalRate*(cpu/served)/m.CPURequest)
		}
	}
	return e.Utilization
}

// drainingUtilization is the offered load while pods serve more than
// arrives, draining a backlog: the arrivals' share of the CPU used, but not
// below the threshold while the CPU used is above it. The drain's CPU is not
// demand that lasts: pods asked for it are ready a pod startup later, when
// the running pods' surplus has mostly drained it, and the HPA keeps them
// through its scale-down window. Held at the threshold, the count neither
// rises for the drain nor falls while it runs.
func drainingUtilization(e Evaluation) float64 {
	arrivals := e.Utilization * e.ArrivalRate / e.RequestRate
	return math.Max(arrivals, math.Min(e.Utilization, e.Threshold.Threshold))
}

// backlogTolerance is how many more requests may arrive than are served,
// as a fraction, before they count as a backlog: the HPA's own tolerance,
// within which it would not act on the difference anyway.
const backlogTolerance = 0.1

func isFiniteNonNegative(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }

// Newest is the newest arrival rate (the demand's where arrivals are
// unknown) and CPU usage of the range: what a poll saw now.
func (m Measurements) Newest() (arrivals, cpu float64) {
	arrivals = newest(m.Arrivals)
	if len(m.Arrivals) == 0 {
		arrivals = newest(m.Demand)
	}
	return arrivals, newest(m.CPU)
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

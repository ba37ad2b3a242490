package emulator

import (
	"fmt"
	"math"
	"strconv"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/scaler/metric"
)

// autoscaler decides the replica counts of the autoscaled components at
// every tick.
type autoscaler interface {
	tick() error
	// first is the first tick's time, period the time between ticks, in
	// seconds.
	first() float64
	period() float64
}

// newAutoscaler builds the run's autoscaler: Knative's KPA, KEDA with the
// Kubernetes HPA behind it, or a clairvoyant oracle.
func newAutoscaler(e *Emulator, run scenario.Run) (autoscaler, error) {
	switch run.Autoscaling {
	case "none":
		return nil, nil
	case "kpa":
		return newKPA(e, run.Target), nil
	case "oracle", "oracle-free":
		return newOracle(e, run), nil
	}
	return newKEDA(e, run)
}

// kedaHPA is KEDA polling a trigger, and the Kubernetes HPA acting on its
// metric. hpa-cpu, lare and artt ask artt-scaler (the HPA on CPU is its
// static mode at the CPU target); keda-rps is KEDA's Prometheus scaler on
// the request rate, as an AverageValue metric.
type kedaHPA struct {
	e        *Emulator
	policy   string
	triggers map[*component]trigger
	// rpsPerPod is keda-rps's threshold.
	rpsPerPod float64
	// visits is how many calls one external request makes to each
	// component: what the workload's past offers it.
	visits map[*component]float64
}

// trigger is one autoscaled component's ScaledObject trigger: artt-
// scaler's settings, or keda-rps's rate window in sample intervals.
type trigger struct {
	spec          metric.Settings
	rateIntervals int
}

// kedaRPSWindow is the rate window of KEDA's documented Prometheus
// trigger, sum(rate(http_requests_total[2m])).
const kedaRPSWindow = 120.0

// newKEDA builds the trigger of every autoscaled component through
// artt-scaler's own settings parser (package scaler/metric), as a ScaledObject would configure it.
func newKEDA(e *Emulator, run scenario.Run) (*kedaHPA, error) {
	a := &kedaHPA{e: e, policy: run.Autoscaling, triggers: make(map[*component]trigger), rpsPerPod: run.Target, visits: e.callsPerRequest()}
	interval := e.sc.Control.SampleInterval.Seconds()
	var scraped []*component
	lookback := 0.0
	for _, c := range e.comps {
		if !c.spec.Autoscale {
			continue
		}
		if a.policy == "keda-rps" {
			a.triggers[c] = trigger{rateIntervals: rateIntervals(kedaRPSWindow, interval)}
			continue
		}
		spec, err := metric.ParseSettings(a.metadata(c))
		if err == nil {
			err = checkCalendarStep(spec, interval)
		}
		if err != nil {
			return nil, fmt.Errorf("component %s: %w", c.spec.Name, err)
		}
		a.triggers[c] = trigger{spec: spec}
		scraped = append(scraped, c)
		lookback = max(lookback, float64(spec.Points()-1)*spec.Step.Seconds()+spec.RateWindow.Seconds())
	}
	if len(scraped) > 0 {
		e.scrapes = newScrapeModel(e, scraped, lookback)
	}
	return a, nil
}

// metadata is the trigger metadata of component c: the scenario's and the
// run's over the defaults the live loop shares (Scenario.TriggerMetadata),
// then the autoscaler's own keys.
func (a *kedaHPA) metadata(c *component) map[string]string {
	e := a.e
	md := e.sc.TriggerMetadata(e.run, c.spec.Name, "http://lab.invalid:9090")
	switch a.policy {
	case "hpa-cpu":
		md["mode"] = "static"
		md["offeredLoad"] = "false"
		md["staticThreshold"] = strconv.FormatFloat(e.run.CPUTarget, 'g', -1, 64)
	case "lare":
		md["mode"] = "lare"
		md["offeredLoad"] = "false" // the published baseline scales on CPU
	case "artt":
		md["mode"] = "artt"
	}
	return md
}

func (a *kedaHPA) period() float64 { return a.e.sc.Control.PollingInterval.Seconds() }

// first is KEDA's first poll after the load's start: its polls run from
// the ScaledObject's creation, not from the load's.
func (a *kedaHPA) first() float64 { return a.e.phases.FirstPoll }

// tick polls every autoscaled component and applies the HPA's decision.
func (a *kedaHPA) tick() error {
	e := a.e
	for _, c := range e.comps {
		t, ok := a.triggers[c]
		if !ok {
			continue
		}
		if a.policy == "keda-rps" {
			rate := windowMean(c.demand, len(c.demand)-1, t.rateIntervals)
			if math.IsNaN(rate) {
				continue // Prometheus has no rate over the window yet
			}
			e.scaleByHPA(c, averageValueReplicas(rate, a.rpsPerPod, len(c.pods)))
			continue
		}
		m := a.measurements(c, t)
		ev, err := metric.Evaluate(t.spec, m)
		if err != nil {
			e.res.note(fmt.Sprintf("%.0fs: %s: scaler error, no change: %v", e.now, c.spec.Name, err))
			continue
		}
		e.res.threshold(c, ev.Threshold.Threshold)
		arrivals, cpu := m.Newest()
		e.res.answered(c, outcome.ScalerInputs{Arrivals: arrivals, CPU: cpu, ReadyPods: float64(len(c.ready)),
			Value: ev.MetricValue(t.spec.Form), Target: ev.MetricTarget(t.spec.Form), PerPod: t.spec.Form == metric.FormPods})
		if t.spec.Form == metric.FormPods { // metricType AverageValue
			e.scaleByHPA(c, averageValueReplicas(ev.MetricValue(t.spec.Form), ev.MetricTarget(t.spec.Form), len(c.pods)))
			continue
		}
		e.scaleByHPA(c, valueReplicas(ev.MetricValue(t.spec.Form)/ev.MetricTarget(t.spec.Form), len(c.ready), len(c.pods)))
	}
	return nil
}

// measurements are what the trigger's range queries return, as
// Prometheus holds the pods' scrapes (scrapes.go), and the CPU requested
// by the ready pods now.
func (a *kedaHPA) measurements(c *component, t trigger) metric.Measurements {
	m := a.e.scrapes.measurements(c, t.spec)
	m.CPURequest = float64(len(c.ready)) * c.spec.CPURequest
	m.PodCPURequest = c.spec.CPURequest
	if t.spec.UsesCalendar() {
		m.Calendar = a.e.calendarHistory(c, t.spec, a.visits[c])
	}
	return m
}

// hpaTolerance is the HPA's default tolerance: no change while the usage
// ratio is within 10% of 1.
const hpaTolerance = 0.1

// valueReplicas is the HPA's recommendation for a Value (or Utilization)
// metric at usage ratio (metric ÷ target): ceil(ratio × ready pods),
// unless the ratio is within the tolerance (replica_calculator.go,
// getUsageRatioReplicaCount).
func valueReplicas(ratio float64, readyPods, current int) int {
	if math.Abs(ratio-1) <= hpaTolerance || readyPods == 0 {
		return current
	}
	return int(math.Ceil(ratio * float64(readyPods)))
}

// averageValueReplicas is the HPA's recommendation for an AverageValue
// external metric (KEDA's default metricType): ceil(usage ÷ target per
// pod), unless usage ÷ (target × current replicas) is within the
// tolerance (replica_calculator.go, GetExternalPerPodMetricReplicas).
func averageValueReplicas(usage, targetPerPod float64, current int) int {
	if current > 0 && math.Abs(usage/(targetPerPod*float64(current))-1) <= hpaTolerance {
		return current
	}
	return int(math.Ceil(usage / targetPerPod))
}

// scaleByHPA applies the HPA's rules to a recommendation: scale-up limited
// per sync to maxScaleUp; scale-down to the highest recommendation of the
// stabilisation window, the replicas it began with among them; then
// min/max.
func (e *Emulator) scaleByHPA(c *component, rec int) {
	current := len(c.pods)
	if c.recommendations == nil {
		// The HPA records the replicas it first finds as a recommendation
		// (horizontal.go, recordInitialRecommendation): it was made with
		// the ScaledObject, a poll before the load's first.
		created := e.phases.FirstPoll - e.sc.Control.PollingInterval.Seconds()
		c.recommendations = []recommendation{{at: created, replicas: current}}
	}
	c.recommendations = append(c.recommendations, recommendation{at: e.now, replicas: rec})
	window := e.sc.Control.ScaleDownWindow.Seconds()
	keep := c.recommendations[:0]
	for _, r := range c.recommendations {
		if e.now-r.at <= window {
			keep = append(keep, r)
		}
	}
	c.recommendations = keep
	desired := rec
	if desired < current {
		for _, r := range c.recommendations {
			desired = max(desired, r.replicas)
		}
		desired = min(desired, current)
	}
	if desired > current {
		desired = min(desired, e.maxScaleUp(current))
	}
	e.resize(c, min(max(desired, c.spec.MinReplicas), c.spec.MaxReplicas))
}

// maxScaleUp is the most replicas one HPA sync may go to from current: the
// larger of +HPAScaleUpPercent and +HPAScaleUpPods (its behavior.scaleUp;
// +100% or +4 pods by default).
func (e *Emulator) maxScaleUp(current int) int {
	ctl := e.sc.Control
	byPercent := int(math.Ceil(float64(current) * (1 + ctl.HPAScaleUpPercent/100)))
	return max(byPercent, current+ctl.HPAScaleUpPods)
}

// resize sets a component's replica count, as the Deployment's
// ReplicaSet does: new pods scheduled, and the pods its ranking puts first
// removed (scaledown.go).
func (e *Emulator) resize(c *component, desired int) {
	current := len(c.pods)
	if desired == current {
		return
	}
	c.scalingEvents++
	e.res.scaled(c, current, desired)
	e.res.resized(c, current, desired)
	for desired > len(c.pods) {
		p, err := e.createPod(c, nil, false)
		if err != nil || p == nil {
			break
		}
	}
	if excess := len(c.pods) - desired; excess > 0 {
		for _, victim := range e.scaleDownOrder(c)[:excess] {
			e.terminate(victim, false)
		}
	}
	e.reactToChange()
}

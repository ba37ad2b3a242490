package emulator

import "math"

// Knative's KPA defaults (knative/serving pkg/autoscaler/config/config.go)
// and decision (pkg/autoscaler/scaling/autoscaler.go, Scale).
const (
	kpaTick              = 2.0  // tick-interval
	kpaStableWindow      = 60.0 // stable-window
	kpaPanicWindow       = 6.0  // panic-window-percentage 10% of it
	kpaPanicThreshold    = 2.0  // panic-threshold-percentage 200%
	kpaMaxScaleUpRate    = 1000 // max-scale-up-rate
	kpaMaxScaleDownRate  = 2    // max-scale-down-rate
	kpaTargetUtilization = 0.7  // container-concurrency-target-percentage
)

// kpa is Knative's Pod Autoscaler on concurrency: every tick it averages
// the requests in flight over the stable and the panic windows and asks
// for ceil(average ÷ target) pods. It enters panic mode when the panic
// window asks for twice the ready pods, and then never scales down until
// the stable window has seen no panic for its whole length. It sets the
// Deployment's replicas itself: no HPA, so no HPA sync or scale-up policy.
type kpa struct {
	e     *Emulator
	comps []*kpaComponent
}

// kpaComponent is one revision's decider.
type kpaComponent struct {
	c *component
	// target is the concurrency per pod aimed for: the configured target
	// × the target utilisation.
	target float64
	// buckets are the mean concurrency of each tick, newest last, as far
	// back as the stable window.
	buckets          []float64
	lastArea, lastAt float64
	// panicSince is when the panic window last asked for panic (NaN when
	// not panicking); maxPanicPods the most pods asked for in this panic.
	panicSince   float64
	maxPanicPods int
}

func newKPA(e *Emulator, concurrencyTarget float64) *kpa {
	k := &kpa{e: e}
	for _, c := range e.comps {
		if c.spec.Autoscale {
			k.comps = append(k.comps, &kpaComponent{c: c, target: concurrencyTarget * kpaTargetUtilization, panicSince: math.NaN()})
		}
	}
	return k
}

func (k *kpa) period() float64 { return kpaTick }
func (k *kpa) first() float64  { return kpaTick }

func (k *kpa) tick() error {
	for _, d := range k.comps {
		d.observe(k.e.now)
		desired := d.decide(k.e.now, len(d.c.ready))
		k.e.resize(d.c, min(max(desired, d.c.spec.MinReplicas), d.c.spec.MaxReplicas))
	}
	return nil
}

// observe closes the tick's bucket: the time-averaged requests in flight
// since the last tick, as the queue-proxies report it every second and the
// autoscaler sums it over the pods.
func (d *kpaComponent) observe(now float64) {
	area := d.c.inFlightIntegral(now)
	if now > d.lastAt {
		d.buckets = append(d.buckets, (area-d.lastArea)/(now-d.lastAt))
	}
	d.lastArea, d.lastAt = area, now
	if keep := int(math.Round(kpaStableWindow / kpaTick)); len(d.buckets) > keep {
		d.buckets = d.buckets[len(d.buckets)-keep:]
	}
}

// windowAverage is the mean of the newest buckets covering window seconds
// (fewer while the run is younger), as Knative's TimedFloat64Buckets.
func (d *kpaComponent) windowAverage(window float64) float64 {
	n := min(len(d.buckets), int(math.Round(window/kpaTick)))
	if n == 0 {
		return 0
	}
	var sum float64
	for _, b := range d.buckets[len(d.buckets)-n:] {
		sum += b
	}
	return sum / float64(n)
}

// decide is Knative's Scale for the concurrency metric.
func (d *kpaComponent) decide(now float64, readyPods int) int {
	ready := math.Max(1, float64(readyPods))
	maxUp := math.Ceil(kpaMaxScaleUpRate * ready)
	maxDown := math.Floor(ready / kpaMaxScaleDownRate)
	dspc := math.Ceil(d.windowAverage(kpaStableWindow) / d.target)
	dppc := math.Ceil(d.windowAverage(kpaPanicWindow) / d.target)
	stable := int(math.Min(math.Max(dspc, maxDown), maxUp))
	panicPods := int(math.Min(math.Max(dppc, maxDown), maxUp))

	over := dppc/ready >= kpaPanicThreshold
	switch {
	case over:
		d.panicSince = now // begin, or extend, the panic
	case !math.IsNaN(d.panicSince) && d.panicSince+kpaStableWindow < now:
		d.panicSince, d.maxPanicPods = math.NaN(), 0 // the surge is in the stable window now
	}
	if math.IsNaN(d.panicSince) {
		return stable
	}
	// In panic: the larger of the two windows, and never down.
	d.maxPanicPods = max(d.maxPanicPods, stable, panicPods)
	return d.maxPanicPods
}

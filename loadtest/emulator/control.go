package emulator

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/artt-dev/artt/scaler"
)

// podSample is what Prometheus would report for a pod over the last
// sample interval.
type podSample struct {
	cpu, rps, p95, errRate float64
	cpuTotal               float64
	arrivals, answered     int64
	errors                 int64
}

// sample records the per-pod and per-component measurements of the last
// interval, as a Prometheus scrape plus rate() would.
func (e *Emulator) sample() {
	dt := e.sc.Control.SampleInterval.Seconds()
	for _, n := range e.nodes {
		e.advanceNode(n)
	}
	for _, c := range e.comps {
		var rps, cpu float64
		for _, p := range c.pods {
			prev, seen := e.res.lastSample[p.id]
			span := dt
			if !seen {
				span = math.Max(e.now-p.born, 1e-9)
			}
			m := podSample{
				cpu: (p.cpuSeconds - prev.cpuTotal) / span,
				// istio_requests_total counts a request when its response
				// is sent, so a rate is of completions, not arrivals: an
				// overloaded pod's rate is what it manages to serve.
				rps:      float64(p.answered-prev.answered) / span,
				p95:      math.NaN(),
				errRate:  math.NaN(),
				cpuTotal: p.cpuSeconds, arrivals: p.arrivals, answered: p.answered, errors: p.errors,
			}
			if answered := p.answered - prev.answered; answered > 0 {
				m.errRate = float64(p.errors-prev.errors) / float64(answered)
			}
			if len(p.window) > 0 {
				slices.Sort(p.window)
				m.p95 = p.window[int(math.Ceil(0.95*float64(len(p.window))))-1]
				p.window = p.window[:0]
			}
			e.res.lastSample[p.id] = m
			if p.state == ready {
				rps += m.rps
				cpu += m.cpu
			}
		}
		c.demand = append(c.demand, rps)
		c.cpu = append(c.cpu, cpu)
	}
	e.res.sampled()
}

// autoscaler is KEDA polling artt-scaler plus the Kubernetes HPA.
type autoscaler struct {
	e     *Emulator
	specs map[*component]scaler.Spec
}

// newAutoscaler builds the trigger of every autoscaled component through
// artt-scaler's own metadata parser. "hpa-cpu" is the default HPA on CPU:
// its replica formula is artt-scaler's static mode at the CPU target.
func newAutoscaler(e *Emulator, policy string) (*autoscaler, error) {
	if policy == "none" {
		return nil, nil
	}
	a := &autoscaler{e: e, specs: make(map[*component]scaler.Spec)}
	for _, c := range e.comps {
		if !c.spec.Autoscale {
			continue
		}
		md := map[string]string{
			"prometheusAddress": "http://lab.invalid:9090",
			"workload":          c.spec.Name,
			"step":              e.sc.Control.SampleInterval.String(),
		}
		for k, v := range e.sc.Control.ScalerMetadata {
			md[k] = v
		}
		for k, v := range e.run.ScalerMetadata {
			md[k] = v
		}
		switch policy {
		case "hpa-cpu":
			md["mode"] = "static"
			md["staticThreshold"] = strconv.FormatFloat(e.run.CPUTarget, 'g', -1, 64)
		case "lare":
			md["mode"] = "lare"
		case "artt":
			md["mode"] = "artt"
		}
		spec, err := scaler.ParseMetadata("lab", c.spec.Name, md, "")
		if err != nil {
			return nil, fmt.Errorf("component %s: %w", c.spec.Name, err)
		}
		a.specs[c] = spec
	}
	return a, nil
}

// tick polls every autoscaled component and applies the HPA's decision.
func (a *autoscaler) tick() error {
	e := a.e
	for _, c := range e.comps {
		spec, ok := a.specs[c]
		if !ok {
			continue
		}
		ev, err := scaler.Evaluate(spec, a.measurements(c, spec))
		if err != nil {
			e.res.note(fmt.Sprintf("%.0fs: %s: scaler error, no change: %v", e.now, c.spec.Name, err))
			continue
		}
		e.res.threshold(c, ev.Threshold.Threshold)
		a.hpa(c, ev.MetricValue(spec.Form)/100)
	}
	return nil
}

// measurements are the last window+history samples, NaN where the run is
// younger than that, and the CPU requested by the ready pods now.
func (a *autoscaler) measurements(c *component, spec scaler.Spec) scaler.Measurements {
	n := spec.Points()
	m := scaler.Measurements{Demand: make([]float64, n), CPU: make([]float64, n)}
	for i := range n {
		j := len(c.demand) - n + i
		m.Demand[i], m.CPU[i] = math.NaN(), math.NaN()
		if j >= 0 {
			m.Demand[i], m.CPU[i] = c.demand[j], c.cpu[j]
		}
	}
	m.CPURequest = float64(len(c.ready)) * c.spec.CPURequest
	return m
}

// hpa applies the Kubernetes HPA algorithm to a usage ratio (metric value ÷
// target): no change within the 10% tolerance, else ceil(ratio × ready
// pods); scale-up limited to max(+100%, +4 pods) per period; scale-down to
// the highest recommendation of the stabilisation window; then min/max.
func (a *autoscaler) hpa(c *component, ratio float64) {
	e := a.e
	current := len(c.pods)
	readyPods := len(c.ready)
	rec := current
	if math.Abs(ratio-1) > 0.1 && readyPods > 0 {
		rec = int(math.Ceil(ratio * float64(readyPods)))
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
		desired = min(desired, max(2*current, current+4))
	}
	desired = min(max(desired, c.spec.MinReplicas), c.spec.MaxReplicas)
	if desired == current {
		return
	}
	c.scalingEvents++
	e.res.scaled(c, current, desired)
	for desired > len(c.pods) {
		p, err := e.createPod(c, nil, false)
		if err != nil || p == nil {
			break
		}
	}
	for desired < len(c.pods) {
		// The ReplicaSet removes the newest pods first (unready before ready).
		victim := c.pods[len(c.pods)-1]
		for _, p := range c.pods {
			if p.state == starting {
				victim = p
			}
		}
		e.terminate(victim, false)
	}
	e.reactToChange()
}

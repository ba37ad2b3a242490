package emulator

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/internal/stats"
)

// podSample is what Prometheus would report for a pod over the last
// sample interval.
type podSample struct {
	cpu, rps, p95, errRate float64
	// meanLatency is the histogram's sum over its count: the interval's
	// mean latency.
	meanLatency float64
	// waiting and throttled are the rates of the cgroup's CPU pressure
	// (seconds some thread waited) and own-quota throttled periods.
	waiting, throttled float64
	cpuTotal           float64
	waitingTotal       float64
	throttledTotal     float64
	arrivals, answered int64
	errors             int64
}

// sample records the per-pod and per-component measurements of the last
// interval, as a Prometheus scrape plus rate() would.
func (e *Emulator) sample() {
	dt := e.sc.Control.SampleInterval.Seconds()
	for _, n := range e.nodes {
		e.advanceNode(n)
	}
	for _, c := range e.comps {
		var rps, arrived, cpu float64
		for _, p := range c.pods {
			prev, seen := e.res.lastSample[p.id]
			// A pod's first rate spans the scrape before it: a whole
			// interval for the pods deployed before the load, at zero
			// then; from its start for a pod the run started.
			span := dt
			if !seen && p.born > 0 {
				span = math.Max(e.now-p.born, 1e-9)
			}
			m := podSample{
				cpu:       (p.cpuSeconds - prev.cpuTotal) / span,
				waiting:   (p.waitingSeconds - prev.waitingTotal) / span,
				throttled: (p.throttledPeriods - prev.throttledTotal) / span,
				// istio_requests_total counts a request when its response
				// is sent, so a rate is of completions, not arrivals: an
				// overloaded pod's rate is what it manages to serve.
				rps:         float64(p.answered-prev.answered) / span,
				p95:         math.NaN(),
				meanLatency: math.NaN(),
				errRate:     math.NaN(),
				cpuTotal:    p.cpuSeconds, waitingTotal: p.waitingSeconds, throttledTotal: p.throttledPeriods,
				arrivals: p.arrivals, answered: p.answered, errors: p.errors,
			}
			if answered := p.answered - prev.answered; answered > 0 {
				m.errRate = float64(p.errors-prev.errors) / float64(answered)
			}
			if len(p.window) > 0 {
				slices.Sort(p.window)
				m.p95 = p.window[int(math.Ceil(0.95*float64(len(p.window))))-1]
				m.meanLatency = stats.Mean(p.window)
				p.window = p.window[:0]
			}
			e.res.lastSample[p.id] = m
			if p.state == ready {
				rps += m.rps
				arrived += float64(p.arrivals-prev.arrivals) / span
				cpu += m.cpu
			}
		}
		c.demand = append(c.demand, rps)
		c.arrivals = append(c.arrivals, arrived)
		if !e.scrapes.scrapes(c) {
			e.res.sampledArrivals(c, arrived)
		}
		c.cpu = append(c.cpu, cpu)
	}
	e.res.sampled()
}

// windowMean is what rate() over a window of k sample intervals reads at
// sample j: the mean of the per-interval rates j−k+1 … j (NaN before the
// run has k of them).
func windowMean(xs []float64, j, k int) float64 {
	if j-k+1 < 0 || j >= len(xs) {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs[j-k+1 : j+1] {
		sum += x
	}
	return sum / float64(k)
}

// rateIntervals is how many scrape intervals a rate() over window spans:
// with scrapes not aligned to the query, a window of w holds w ÷ interval
// samples, and rate() extrapolates over the w ÷ interval − 1 intervals
// between them (at least one).
func rateIntervals(window, interval float64) int {
	return max(1, int(math.Round(window/interval))-1)
}

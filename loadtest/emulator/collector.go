package emulator

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/internal/stats"
	"github.com/artt-dev/artt/loadtest/outcome"
)

type collector struct {
	e          *Emulator
	lastSample map[int]podSample
	res        outcome.Result

	windowLat      []float64
	windowStarted  int64
	windowTimeouts int64
	unfinished     int64
	thresholds     map[string]float64
	steps          []*stepWatch
	allocations    int
	protections    int
	cpuAtWarmup    map[int]float64
	warmed         bool
	sampledAt      float64
	networkSum     float64
	networkCount   int64
}

func newCollector(e *Emulator) *collector {
	c := &collector{
		e:           e,
		lastSample:  make(map[int]podSample),
		thresholds:  make(map[string]float64),
		cpuAtWarmup: make(map[int]float64),
		res: outcome.Result{Scenario: e.sc.Name, Run: e.run.Label(), Seed: e.sc.Seed,
			Routing: e.run.Routing, Autoscaling: e.run.Autoscaling, Frontier: e.run.Frontier, Floor: e.run.Floor, Sweep: e.run.Sweep()},
	}
	c.res.AfterEvents = outcome.EventImpacts(e.sc.Events)
	c.res.LoadSteps = outcome.LoadSteps(e.sc.Workload)
	return c
}

func (c *collector) note(s string) {
	if len(c.res.Notes) < 200 {
		c.res.Notes = append(c.res.Notes, s)
	}
}

func (c *collector) started(r *rootRequest) {
	c.windowStarted++
	if r.measured {
		outcome.StartImpact(c.res.AfterEvents, r.start)
		c.res.Requests++
		c.unfinished++
	}
}

func (c *collector) finished(r *rootRequest, at float64, failed bool) {
	lat := at - r.start
	timedOut := !failed && lat > c.e.timeout
	if timedOut {
		c.windowTimeouts++
	} else if !failed {
		c.windowLat = append(c.windowLat, lat*1000)
	}
	if !r.measured {
		return
	}
	c.unfinished--
	c.networkSum += r.network
	c.networkCount++
	switch {
	case failed:
		c.res.Errors++
	case timedOut:
		c.res.Timeouts++
	default:
		c.res.Succeeded++
		c.res.LatenciesMs = append(c.res.LatenciesMs, lat*1000)
		outcome.SucceedImpact(c.res.AfterEvents, r.start, lat*1000)
	}
}

func (c *collector) podCreated(p *replica) {
	if c.warmed {
		c.cpuAtWarmup[p.id] = 0
	}
}

func (c *collector) podGone(p *replica) { p.died = c.e.now }

func (c *collector) scaled(*component, int, int) { c.res.ScalingEvents++ }

func (c *collector) threshold(comp *component, v float64) { c.thresholds[comp.spec.Name] = v }

// sampled closes a sample interval's series point.
func (c *collector) sampled() {
	e := c.e
	span := e.now - c.sampledAt // the first interval is the part the load ran
	c.sampledAt = e.now
	if !c.warmed && e.now >= e.warmup {
		c.warmed = true
		for _, p := range e.pods {
			c.cpuAtWarmup[p.id] = p.cpuSeconds
		}
	}
	pt := outcome.Point{
		T:           e.now,
		Rate:        float64(c.windowStarted) / span,
		P99Ms:       math.NaN(),
		Timeouts:    c.windowTimeouts,
		Replicas:    make(map[string]int, len(e.comps)),
		Threshold:   make(map[string]float64, len(c.thresholds)),
		Utilization: make(map[string]float64),
	}
	if len(c.windowLat) > 0 {
		slices.Sort(c.windowLat)
		pt.P99Ms = stats.Quantile(c.windowLat, 0.99)
	}
	for _, comp := range e.comps {
		pt.Replicas[comp.spec.Name] = len(comp.ready)
		for _, p := range comp.ready {
			pt.Utilization[p.name] = c.lastSample[p.id].cpu / comp.spec.CPULimit
		}
	}
	for k, v := range c.thresholds {
		pt.Threshold[k] = v
	}
	c.res.Series = append(c.res.Series, pt)
	c.windowLat, c.windowStarted, c.windowTimeouts = c.windowLat[:0], 0, 0
}

// finish computes the summary once the run is over.
func (c *collector) finish() *outcome.Result {
	e := c.e
	r := &c.res
	r.Timeouts += c.unfinished
	r.Allocations = c.allocations
	r.Protections = c.protections
	r.Events, r.Hops = e.eventsRun, e.hops
	if e.hops > 0 {
		r.CrossNodeFraction = float64(e.crossHops) / float64(e.hops)
	}
	r.NetworkMs = math.NaN()
	if c.networkCount > 0 {
		r.NetworkMs = 1000 * c.networkSum / float64(c.networkCount)
	}
	r.SummarizeLatencies()
	if r.Requests > 0 {
		r.SuccessRate = float64(r.Succeeded) / float64(r.Requests)
	}
	end := e.duration
	for _, n := range e.nodes {
		e.advanceNode(n)
	}
	for _, p := range e.pods {
		from := math.Max(p.born, e.warmup)
		to := end
		if p.died > 0 && p.died < end {
			to = p.died
		}
		life := to - from
		if life <= 0 {
			continue
		}
		r.ReplicaSeconds += life
		util := (p.cpuSeconds - c.cpuAtWarmup[p.id]) / (p.comp.spec.CPULimit * life)
		r.Pods = append(r.Pods, outcome.PodResult{Name: p.name, Component: p.comp.spec.Name, Node: p.node.name, Seconds: life, Utilization: util})
	}
	names := make([]string, len(e.comps))
	for i, comp := range e.comps {
		names[i] = comp.spec.Name
	}
	r.SummarizePods(names, e.sc.Control.SampleInterval.Seconds())
	c.finishTimelines()
	return r
}

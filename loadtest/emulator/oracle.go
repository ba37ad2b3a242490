package emulator

import (
	"math"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// oracle is a clairvoyant autoscaler, the limit others are measured
// against. It knows the workload's rate function from the scenario (up to
// its lookahead) and each component's CPU per external request on the
// nodes its pods run on, and asks for the pods that demand needs at its
// target utilisation of their CPU requests.
//
// Behind the HPA ("oracle") it acts at every HPA sync through the HPA's
// tolerance, scale-up policy and scale-down stabilisation, as an
// AverageValue metric in pods' worth: the limit for any scaler KEDA polls.
// Where the scale-up policy would make it late, it starts climbing early
// enough. With no HPA ("oracle-free") it sets the replicas every second:
// the limit for any autoscaler.
type oracle struct {
	e     *Emulator
	comps []*component
	// visits is how many calls one external request makes to each component.
	visits map[*component]float64
	// target is the utilisation of the pods' CPU requests aimed for.
	target float64
	// lookahead is how far ahead the oracle sees the rate (+Inf: all of
	// it; negative: how late it sees it).
	lookahead float64
	behindHPA bool
}

// oracleFreeTick is how often the oracle with no HPA sets the replicas.
const oracleFreeTick = 1.0

func newOracle(e *Emulator, run scenario.Run) *oracle {
	o := &oracle{e: e, visits: e.callsPerRequest(), target: run.CPUTarget / 100, lookahead: math.Inf(1),
		behindHPA: run.Autoscaling == "oracle"}
	if run.Lookahead != nil {
		o.lookahead = run.Lookahead.Seconds()
	}
	for _, c := range e.comps {
		if c.spec.Autoscale {
			o.comps = append(o.comps, c)
		}
	}
	return o
}

// period is the HPA's (as KEDA's poll drives it in the lab), or the oracle
// tick without one.
func (o *oracle) period() float64 {
	if o.behindHPA {
		return o.e.sc.Control.PollingInterval.Seconds()
	}
	return oracleFreeTick
}

// first is the first poll behind the HPA, at KEDA's phase, so the oracle
// acts when ARTT-HPA would; the first tick without one.
func (o *oracle) first() float64 {
	if o.behindHPA {
		return o.e.phases.FirstPoll
	}
	return oracleFreeTick
}

func (o *oracle) tick() error {
	e := o.e
	startup := e.sc.Control.PodStartup.Seconds()
	for _, c := range o.comps {
		if !o.behindHPA {
			// Pods asked for now are ready after startup, and the next
			// tick's a second later: cover that window's demand.
			need := o.podsFor(c, o.peak(e.now, e.now+startup+oracleFreeTick))
			e.resize(c, need)
			continue
		}
		e.scaleByHPA(c, averageValueReplicas(float64(o.plan(c)), 1, len(c.pods)))
	}
	return nil
}

// plan is the count to ask the HPA for now. Pods asked for at sync j are
// ready from its startup on and must carry the demand until the next
// sync's pods are ready; working back from the last sync a climb can need,
// each sync's count is raised to what the scale-up policy must start from
// to reach the next one's in time.
func (o *oracle) plan(c *component) int {
	e := o.e
	sync, startup := o.period(), e.sc.Control.PodStartup.Seconds()
	horizon := o.climbSyncs(c)
	required := 0
	for j := horizon; j >= 0; j-- {
		at := e.now + float64(j)*sync
		need := o.podsFor(c, o.peak(at, at+sync+startup))
		required = max(need, o.climbFrom(required, c.spec.MinReplicas))
	}
	return required
}

// climbSyncs is how many HPA syncs the scale-up policy needs to take a
// component from its minimum to its maximum replicas.
func (o *oracle) climbSyncs(c *component) int {
	n, syncs := max(c.spec.MinReplicas, 1), 0
	for n < c.spec.MaxReplicas {
		n = o.e.maxScaleUp(n)
		syncs++
	}
	return syncs
}

// climbFrom is the fewest replicas (at least floor) from which one sync's
// scale-up can reach n.
func (o *oracle) climbFrom(n, floor int) int {
	from := max(n, floor)
	for from > floor && o.e.maxScaleUp(from-1) >= n {
		from--
	}
	return from
}

// peak is the highest rate the oracle sees now over [a, b]: the scenario's
// rate up to its lookahead, and beyond it the last rate it sees (with a
// negative lookahead, the rate that long ago).
func (o *oracle) peak(a, b float64) float64 {
	horizon := o.e.now + o.lookahead
	return o.e.rate.Max(math.Min(a, horizon), math.Min(b, horizon))
}

// podsFor is the pods component c needs for an external rate at the
// target utilisation of their CPU requests, within its replica bounds. A
// request's CPU depends on where the pods run, and where they run on how
// many there are: the count is iterated to its fixed point (the larger of
// two it alternates between).
func (o *oracle) podsFor(c *component, rate float64) int {
	work := rate * o.visits[c] * c.spec.CPUPerRequest.Seconds() // speed-1 cores
	perPod := o.target * c.spec.CPURequest
	spread := o.e.meanSlowness()
	n, prev := max(len(c.pods), 1), 0
	for range 8 {
		next := int(math.Ceil(work*slowness(c, n, spread)/perPod - 1e-9))
		next = min(max(next, c.spec.MinReplicas), c.spec.MaxReplicas)
		if next == n || next == prev {
			n = max(n, next)
			break
		}
		prev, n = n, next
	}
	return n
}

// slowness is the mean of 1 ÷ speed over n pods of c, a request's CPU on
// them against a speed-1 node's: its first n pods' nodes (a scale-down
// removes the newest first), and for pods beyond those spread, the mean
// over every node, where the scheduler's least-allocated spreading puts
// them.
func slowness(c *component, n int, spread float64) float64 {
	var sum float64
	kept := min(n, len(c.pods))
	for _, p := range c.pods[:kept] {
		sum += 1 / p.node.speed
	}
	return (sum + float64(n-kept)*spread) / float64(n)
}

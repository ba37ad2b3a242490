package health

import (
	"math"
	"time"

	"github.com/artt-dev/artt/traffic"
)

// State is a group's health.
type State string

// The states.
const (
	Healthy   State = "Healthy"
	Degraded  State = "Degraded"
	Unhealthy State = "Unhealthy"
)

// Config holds the thresholds and timers.
type Config struct {
	DegradedLatencyFactor  float64
	DegradedErrorRate      float64
	UnhealthyLatencyFactor float64
	UnhealthyErrorRate     float64
	UnhealthyAfter         time.Duration
	RecoverAfter           time.Duration
	MinWeight              float64
	ScoreHalfLife          time.Duration
	BaselineAlpha          float64
	BusyUtilization        float64
	DegradedCostFactor     float64
	CostBaselineHalfLife   time.Duration
	MinCostRequests        float64
	MinLatencyRequests     float64
	RestoreStep            float64
	RestoreInterval        time.Duration
	// CFSPeriod is the period over which the cluster's kernels enforce CPU
	// quotas (the kubelet's --cpu-cfs-quota-period): a pod throttled in a
	// period waited less than one for its own quota.
	CFSPeriod time.Duration
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		DegradedLatencyFactor: 2, DegradedErrorRate: 0.05,
		UnhealthyLatencyFactor: 5, UnhealthyErrorRate: 0.5,
		UnhealthyAfter: 5 * time.Second, RecoverAfter: 30 * time.Second,
		MinWeight: 0.1, ScoreHalfLife: 10 * time.Second, BaselineAlpha: 0.05,
		BusyUtilization: 0.5, DegradedCostFactor: 1.5, CostBaselineHalfLife: 2 * time.Minute, MinCostRequests: 100, MinLatencyRequests: 100,
		RestoreStep: 0.5, RestoreInterval: 30 * time.Second,
		CFSPeriod: traffic.CFSPeriod,
	}
}

// Status is a group's health after an observation.
type Status struct {
	State State
	// Weight multiplies the group's share: 1, the score, or 0.
	Weight float64
	// Score is the decaying performance score in [MinWeight, 1].
	Score float64
	// BaselineMs is the latency baseline (NaN until a p95 was seen).
	BaselineMs float64
	// Why is the evidence of the last bad observation of a group that is
	// not Healthy ("" for a Healthy one), for the operator's log.
	Why string
	// Capacity is the fraction of its usual capacity the group is trusted
	// with: 1 ÷ its slowdown (the larger of its judged latency ratio and
	// its CPU per request times its CPU stretch) while Degraded for being
	// slow; its Weight while Healthy (1, or less while it climbs back after
	// a cut, at the restore's pace); and 0 when Unhealthy or when errors
	// were part of the evidence, whose cost to capacity nothing measures.
	Capacity float64
	// CostBaseline is the CPU seconds a request normally needs on the
	// group (NaN until a cost pool was judged).
	CostBaseline float64
}

// Tracker keeps the health of many groups, keyed by the caller.
type Tracker struct {
	cfg    Config
	groups map[string]*group
	// recoveryEvidence is the log-likelihood ratio at which the readings
	// after a held slowdown set it aside (refutedSlowdown);
	// latencyRecoveryEvidence the same for a held latency ratio
	// (refutedRatio).
	recoveryEvidence, latencyRecoveryEvidence float64
}

type group struct {
	state                      State
	entered                    time.Time
	failingSince, healthySince time.Time
	baseline, score            float64
	last                       time.Time
	// costBaseline is the CPU seconds per request it normally needs; slow
	// is its last judged slowdown against that, relative to its peers
	// (judged says there was one since the tracker learned the group).
	costBaseline, slow float64
	costAt             time.Time
	judged             bool
	// heldCost is the CPU per request of the pool behind slow, what the
	// readings after it are tested against (refutedSlowdown); 0 when
	// unknown. heldRequests are the requests behind it: a full pool's, or
	// fewer where the test set the pool's judgement aside (0 when
	// unknown). recovery is that test's state.
	heldCost, heldRequests float64
	recovery               recovery
	// starved is the CPU stretch against its peers' (1 when unknown) that
	// bounds its weight: the capacity a neighbour or a quota above the
	// group took, judged each interval, and held at its largest while the
	// group is not Healthy (holdStarved).
	starved float64
	// cost gathers the CPU per request of the intervals not judged yet
	// (MinCostRequests).
	cost pool
	// latency gathers the load-free p95 of the intervals not judged yet
	// (MinLatencyRequests), and latencyMean their load-free mean; ratio is
	// the last judged p95 against the reference, latencyJudged says there
	// was one.
	latency, latencyMean pool
	ratio                float64
	latencyJudged        bool
	// heldLatencyMs is the load-free mean latency of the pool behind
	// ratio (0 when unknown), what the readings after it are tested
	// against (refutedRatio); latencyRecovery is that test's state.
	heldLatencyMs   float64
	latencyRecovery recovery
	// restoreFrom is the weight the group had when it turned Healthy again,
	// at healthyAt; its weight climbs back from there.
	restoreFrom float64
	healthyAt   time.Time
	// seen is the last Observe of the group, evidence or not: when it was
	// last in the cluster. observed is the same in this tracker; a restored
	// group keeps the last leader's, where its next reading's interval
	// began.
	seen, observed time.Time
	// why is the evidence of the last bad observation; erring says errors
	// were part of it.
	why    string
	erring bool
}

// BusyUtilization is the CPU utilisation at and above which a pod's latency
// is load, not evidence of sickness.
func (t *Tracker) BusyUtilization() float64 { return t.cfg.BusyUtilization }

// DegradedCostFactor is the slowdown past which a group is Degraded.
func (t *Tracker) DegradedCostFactor() float64 { return t.cfg.DegradedCostFactor }

// CFSPeriod is the period of the cluster's CPU quotas.
func (t *Tracker) CFSPeriod() time.Duration { return t.cfg.CFSPeriod }

// New returns an empty tracker.
func New(cfg Config) *Tracker {
	return &Tracker{cfg: cfg, groups: make(map[string]*group),
		recoveryEvidence: recoveryEvidence(cfg), latencyRecoveryEvidence: latencyRecoveryEvidence(cfg)}
}

// Observation is one interval's measurements of a group and of its peers
// (the other groups of the same component). Any value may be NaN.
type Observation struct {
	P95Ms, ErrorRate         float64
	PeerP95Ms, PeerErrorRate float64
	// Utilization is the group's CPU use as a fraction of its limit.
	Utilization float64
	// CostPerRequest is the group's CPU seconds per request, and
	// PeerCostChange the median over its peers of their CostChange.
	CostPerRequest, PeerCostChange float64
	// CostRate is the request rate (per second) CostPerRequest was
	// measured over: with the time since the last observation, how many
	// requests the reading holds. P95Rate is the same for P95Ms.
	CostRate, P95Rate float64
	// MeanMs is the mean latency over the requests P95Ms was read on
	// (NaN or 0 when unknown: no request takes no time).
	MeanMs float64
	// CPUStretch is how much longer the group's CPU work took in wall
	// time than its own limits explain (traffic.Group.CPUStretch), NaN
	// when unknown or no evidence (its node busy with its own pods);
	// PeerCPUStretch the median over its peers of the same.
	CPUStretch, PeerCPUStretch float64
}

// finite is o with every infinite value unknown (NaN). An infinite p95
// taken as a baseline made every later latency ratio ∞/∞ = NaN, and the
// score, an average of NaNs from then on, turned the group's weight NaN for
// good; nothing measured is infinite, so infinity can only be a broken
// sample or an overflow upstream.
func (o Observation) finite() Observation {
	for _, v := range []*float64{&o.P95Ms, &o.ErrorRate, &o.PeerP95Ms, &o.PeerErrorRate, &o.Utilization, &o.CostPerRequest, &o.PeerCostChange, &o.CostRate, &o.P95Rate, &o.MeanMs, &o.CPUStretch, &o.PeerCPUStretch} {
		if math.IsInf(*v, 0) {
			*v = math.NaN()
		}
	}
	return o
}

// CostChange is a group's CPU per request against its own baseline (NaN
// when either is unknown). Callers compute it for every group first, so
// that each Observation can carry its peers' median.
func (t *Tracker) CostChange(key string, costPerRequest float64) float64 {
	g, ok := t.groups[key]
	if !ok || !(g.costBaseline > 0) || !(costPerRequest > 0) {
		return math.NaN()
	}
	return costPerRequest / g.costBaseline
}

// Observe folds one observation of a group into its health. A group is
// judged against its own baseline and against its peers: latency counts
// against p95/max(baseline, peer median p95) and errors as the excess over
// the peers' median error rate. A slowdown or error burst that every group
// shares (an overloaded downstream service, a bad release everywhere) is
// then nobody's fault here, and no group is dropped for it; only a group
// that is worse than the others is.
func (t *Tracker) Observe(key string, at time.Time, o Observation) Status {
	o = o.finite()
	p95Ms, errorRate := o.P95Ms, o.ErrorRate
	if o.Utilization >= t.cfg.BusyUtilization {
		// Slow because busy: that is load, which the share estimator
		// corrects, not sickness; latency is no evidence this interval.
		p95Ms = math.NaN()
	}
	if o.PeerErrorRate > 0 && errorRate >= 0 {
		errorRate = math.Max(0, errorRate-o.PeerErrorRate)
	}
	g, ok := t.groups[key]
	if !ok {
		g = &group{state: Healthy, entered: at, baseline: math.NaN(), score: 1, last: at, costBaseline: math.NaN(), slow: 1, starved: 1, ratio: 1, seen: at, observed: at}
		t.groups[key] = g
	}
	interval := at.Sub(g.observed) // zero for a group just learned
	g.seen, g.observed = at, at
	slow, costKnown := t.costSlowdown(g, at, o, interval)
	starved, starvedKnown := starvation(o)
	g.holdStarved(starved)
	slow *= starved
	ratio, latencyKnown, judgedP95 := t.latencyRatio(g, p95Ms, o.MeanMs, o.PeerP95Ms, o.P95Rate*interval.Seconds())
	errKnown := errorRate >= 0
	if !errKnown {
		errorRate = 0
	}
	switch {
	case latencyKnown || errKnown || costKnown || starvedKnown:
		q := math.Min(1, math.Max(t.cfg.MinWeight, 1-math.Max(0, math.Max(ratio, slow)-1)-10*errorRate))
		decay := math.Exp2(-at.Sub(g.last).Seconds() / t.cfg.ScoreHalfLife.Seconds())
		g.score = q + (g.score-q)*decay
		g.last = at
		good := t.judge(g, at, ratio, slow, starved, errorRate)
		// The baseline learns only from latency that is good by its own
		// measure, not from a slowdown excused because the peers share it.
		if good && g.state == Healthy && judgedP95 <= t.cfg.DegradedLatencyFactor*g.baseline {
			g.baseline += t.cfg.BaselineAlpha * (judgedP95 - g.baseline)
		}
	case g.state == Unhealthy && at.Sub(g.entered) >= t.cfg.RecoverAfter:
		t.enter(g, Degraded, at) // half-open: let probe traffic in
	}
	return t.status(g)
}

// judge moves a group's state by one observation's evidence: severe for
// UnhealthyAfter makes it Unhealthy (Degraded at once), bad Degraded, good
// for RecoverAfter Healthy again (Unhealthy passes through Degraded). It
// reports whether the evidence was good.
func (t *Tracker) judge(g *group, at time.Time, ratio, slow, starved, errorRate float64) (good bool) {
	severe := ratio > t.cfg.UnhealthyLatencyFactor || errorRate > t.cfg.UnhealthyErrorRate
	bad := ratio > t.cfg.DegradedLatencyFactor || errorRate > t.cfg.DegradedErrorRate || slow > t.cfg.DegradedCostFactor
	if severe || bad {
		g.why = t.evidence(ratio, slow/starved, g.heldRequests, starved, errorRate)
		g.erring = errorRate > t.cfg.DegradedErrorRate
	}
	switch {
	case severe:
		g.healthySince = time.Time{}
		if g.failingSince.IsZero() {
			g.failingSince = at
		}
		if at.Sub(g.failingSince) >= t.cfg.UnhealthyAfter {
			t.enter(g, Unhealthy, at)
		} else if g.state == Healthy {
			t.enter(g, Degraded, at)
		}
	case bad:
		g.failingSince, g.healthySince = time.Time{}, time.Time{}
		if g.state == Healthy {
			t.enter(g, Degraded, at)
		}
	default:
		g.failingSince = time.Time{}
		if g.healthySince.IsZero() {
			g.healthySince = at
		}
		if g.state == Unhealthy {
			t.enter(g, Degraded, at)
		} else if g.state == Degraded && at.Sub(g.healthySince) >= t.cfg.RecoverAfter {
			t.enter(g, Healthy, at)
		}
		return true
	}
	return false
}

func (t *Tracker) enter(g *group, s State, at time.Time) {
	if g.state != s && s == Healthy {
		g.restoreFrom, g.healthyAt = t.status(g).Weight, at
	}
	if g.state != s {
		g.state, g.entered = s, at
		if s == Unhealthy {
			// It failed consistently: when it comes back it earns its weight
			// from the minimum.
			g.score = t.cfg.MinWeight
		}
	}
}

func (t *Tracker) status(g *group) Status {
	st := Status{State: g.state, Score: g.score, BaselineMs: g.baseline, CostBaseline: g.costBaseline}
	if g.state != Healthy {
		st.Why = g.why
	}
	switch g.state {
	case Healthy:
		st.Weight = 1
		if g.restoreFrom > 0 && g.restoreFrom < 1 {
			steps := g.last.Sub(g.healthyAt).Seconds() / t.cfg.RestoreInterval.Seconds()
			st.Weight = math.Min(1, g.restoreFrom*math.Pow(1+t.cfg.RestoreStep, math.Max(steps, 0)))
		}
		st.Capacity = st.Weight
	case Degraded:
		st.Weight = math.Max(t.cfg.MinWeight, math.Min(g.score, 1/math.Max(g.slow*g.starved, 1)))
		if !g.erring {
			st.Capacity = 1 / math.Max(g.slowdown(), 1)
		}
	}
	return st
}

// slowdown is how many times slower than usual the group's last judged
// evidence says it serves: its load-free latency against its reference,
// or its CPU per request times its CPU stretch, whichever is larger.
func (g *group) slowdown() float64 {
	ratio := 1.0
	if g.latencyJudged {
		ratio = g.ratio
	}
	return math.Max(ratio, g.slow*g.starved)
}

// Status returns a group's current health without observing anything
// (Healthy with weight 1 for an unknown group).
func (t *Tracker) Status(key string) Status {
	g, ok := t.groups[key]
	if !ok {
		return Status{State: Healthy, Weight: 1, Score: 1, BaselineMs: math.NaN(), Capacity: 1, CostBaseline: math.NaN()}
	}
	return t.status(g)
}

// Forget drops the groups not observed since before: gone from the
// cluster, not merely without evidence (an Unhealthy group gets no traffic,
// and is still observed).
func (t *Tracker) Forget(before time.Time) {
	for k, g := range t.groups {
		if g.seen.Before(before) {
			delete(t.groups, k)
		}
	}
}

// holdStarved takes an interval's CPU stretch as the group's weight bound.
// While the group is not Healthy the bound only tightens: under a quota
// the stretch falls as soon as the group's share is cut, because the
// pods' reduced load then fits the quota, and a bound that followed it
// would hand the traffic back at the next measurement and cut it again at
// the one after. Restoring is the Healthy path's, gradual, as for every
// other cut.
func (g *group) holdStarved(starved float64) {
	if g.state == Healthy || starved > g.starved {
		g.starved = starved
	}
}

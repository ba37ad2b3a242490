package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/artt-dev/artt/loadtest/outcome"
)

// Frontier is the plain HPA's cost–latency frontier: the runs of a CPU
// target sweep, each a (cost, outcome) point. Autoscalers are compared at
// equal cost: a run's P99 and failures against the frontier's at the run's
// replica-seconds, never one default against another.
type Frontier struct {
	// Points are the sweep's runs, cheapest first.
	Points []FrontierPoint
}

// FrontierPoint is one sweep run.
type FrontierPoint struct {
	Run      string
	Cost     float64 // replica-seconds
	P99Ms    float64
	Failures float64 // timeouts + errors
	Success  float64
}

// SweepName is a sweep (scenario.Run.Sweep) and the name the reports give
// its frontier.
type SweepName struct{ Sweep, Name string }

// Sweeps are the real autoscalers a scenario can sweep, each run judged
// against at equal cost.
var Sweeps = []SweepName{{"hpa-cpu", "HPA"}, {"kpa", "KPA"}, {"keda-rps", "keda-rps"}}

// Limits are the clairvoyant sweeps: the oracle behind the HPA, the same
// knowing only the present, and the oracle with no HPA.
var Limits = []SweepName{{"oracle", "oracle"}, {"oracle-0s", "oracle, no lookahead"}, {"oracle-free", "oracle-free"}}

// allSweeps are Sweeps, then Limits.
func allSweeps() []SweepName { return slices.Concat(Sweeps, Limits) }

// NewFrontier collects the HPA sweep's runs of results (nil when fewer
// than two).
func NewFrontier(results []*outcome.Result) *Frontier { return NewSweep(results, "hpa-cpu") }

// NewSweep collects the runs of one sweep (nil when fewer than two).
func NewSweep(results []*outcome.Result, sweep string) *Frontier {
	var f Frontier
	for _, r := range results {
		if r.Frontier && r.Sweep == sweep {
			f.Points = append(f.Points, FrontierPoint{
				Run: r.Run, Cost: r.ReplicaSeconds, P99Ms: r.P99Ms,
				Failures: float64(r.Timeouts + r.Errors), Success: r.SuccessRate,
			})
		}
	}
	if len(f.Points) < 2 {
		return nil
	}
	slices.SortStableFunc(f.Points, func(a, b FrontierPoint) int { return cmp.Compare(a.Cost, b.Cost) })
	return &f
}

// envelope is the lower Pareto envelope of the sweep for one measure
// (lower is better): the points no cheaper-or-equal point beats. Spending
// more with the HPA can always buy at least what a cheaper target gave, so
// a dominated point is noise, not the frontier.
func (f *Frontier) envelope(measure func(FrontierPoint) float64) []FrontierPoint {
	var out []FrontierPoint
	best := math.Inf(1)
	for _, p := range f.Points {
		v := measure(p)
		if math.IsNaN(v) {
			continue
		}
		if v < best {
			out = append(out, p)
			best = v
		}
	}
	return out
}

// At interpolates a measure's envelope linearly at cost. ok is false when
// cost lies outside the sweep's costs: no equal-cost comparison exists
// there, and extrapolating would invent one.
func (f *Frontier) At(cost float64, measure func(FrontierPoint) float64) (v float64, ok bool) {
	env := f.envelope(measure)
	if len(env) == 0 || cost < env[0].Cost || cost > f.Points[len(f.Points)-1].Cost {
		return math.NaN(), false
	}
	for i := 1; i < len(env); i++ {
		a, b := env[i-1], env[i]
		if cost <= b.Cost {
			if b.Cost == a.Cost { // two runs at one cost: the better one
				return measure(b), true
			}
			t := (cost - a.Cost) / (b.Cost - a.Cost)
			return measure(a) + t*(measure(b)-measure(a)), true
		}
	}
	return measure(env[len(env)-1]), true
}

// CostAt is the replica-seconds at which the P99 envelope reaches p99,
// interpolated linearly: what the swept autoscaler spends for the same
// tail. ok is false when no point of the sweep is that good, or when even
// its cheapest point is better.
func (f *Frontier) CostAt(p99 float64) (cost float64, ok bool) {
	env := f.envelope(P99)
	if len(env) == 0 || p99 > env[0].P99Ms || p99 < env[len(env)-1].P99Ms {
		return math.NaN(), false
	}
	for i := 1; i < len(env); i++ {
		a, b := env[i-1], env[i]
		if p99 >= b.P99Ms {
			t := (a.P99Ms - p99) / (a.P99Ms - b.P99Ms)
			return a.Cost + t*(b.Cost-a.Cost), true
		}
	}
	return env[0].Cost, true
}

// Dominance says how a run outside the sweep's costs stands against the
// whole sweep, where no equal-cost ratio exists: Dominates when it is
// cheaper than every point with a shorter tail than any, Dominated when it
// is dearer than every point and one of them has a tail as short, and
// Outside otherwise. Runs within the sweep's costs have their ratio
// instead, and are Outside here.
func (f *Frontier) Dominance(cost, p99 float64) Dominance {
	first, last := f.Points[0], f.Points[len(f.Points)-1]
	best := math.Inf(1)
	for _, p := range f.Points {
		best = math.Min(best, p.P99Ms)
	}
	switch {
	case cost < first.Cost && p99 < best:
		return Dominates
	case cost > last.Cost && best <= p99:
		return Dominated
	}
	return Outside
}

// Dominance is a run's place against a sweep whose costs it lies outside.
type Dominance int

const (
	Outside Dominance = iota
	Dominates
	Dominated
)

// String is the reports' word for the dominance.
func (d Dominance) String() string {
	return [...]string{Outside: "outside the sweep's costs", Dominates: "dominates", Dominated: "dominated"}[d]
}

// FloorP99 is the P99 of the scenario's floor run (NaN without one).
func FloorP99(results []*outcome.Result) float64 {
	for _, r := range results {
		if r.Floor {
			return r.P99Ms
		}
	}
	return math.NaN()
}

// ExcessRatio is a run's P99 excess over the floor against the frontier's
// at equal cost: (P99 − floor) ÷ (frontier P99 − floor). NaN without a
// floor or outside the sweep's costs.
func (f *Frontier) ExcessRatio(r *outcome.Result, floor float64) float64 {
	fp, ok := f.At(r.ReplicaSeconds, P99)
	if !ok || math.IsNaN(floor) || fp <= floor {
		return math.NaN()
	}
	return (r.P99Ms - floor) / (fp - floor)
}

// judged reports whether a run is compared with the frontiers: autoscaled,
// and neither a sweep's own run nor the floor.
func judged(r *outcome.Result) bool {
	return !r.Frontier && !r.Floor && r.Autoscaling != "none" && r.Autoscaling != ""
}

// P99 and Failures select a measure for At.
func P99(p FrontierPoint) float64      { return p.P99Ms }
func Failures(p FrontierPoint) float64 { return p.Failures }

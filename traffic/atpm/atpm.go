// Package atpm is HEART's Adaptive Traffic Proportion Module: it estimates
// how much traffic each node's group of replicas of a component should get
// from how expensive requests are there.
//
//   - Load of a group = Σ CPU / Σ requests over its replicas that served
//     requests in the interval (CPU seconds per request); replicas without
//     requests are excluded, as HEART prescribes.
//   - The load is smoothed by an EWMA whose weight α adapts each cycle to the
//     recent volatility of that group's load: with cv the coefficient of
//     variation of the last History loads,
//     α = AlphaMax − (AlphaMax − AlphaMin) · min(1, cv / VolatilityRef).
//     A calm load is tracked closely; a jumpy one is smoothed, so one noisy
//     interval does not swing the shares. Defaults: α ∈ [0.2, 0.8],
//     VolatilityRef 0.5, History 5. (HEART bounds α to a range chosen by
//     comparing candidates; these bounds are ours, and knobs.)
//   - Higher load → smaller share: a group's capacity is Σ CPU limits / load
//     (requests per second it can serve at full CPU), and shares are
//     proportional to capacity.
//   - Missing data: a group without a valid load this cycle keeps its last
//     EWMA; a new group without one takes the mean EWMA of the groups that
//     had valid loads, or, when none was measured this cycle (a reallocation
//     between cycles after a pod appeared), the mean of the estimates kept;
//     when no group has any estimate (for example all loads zero), traffic is
//     split equally per replica.
//
// A ComponentEstimator keeps per-group state between cycles and forgets a
// group absent for ForgetAfter cycles. Components are independent: each has
// its own ComponentEstimator, so callers may run them in parallel.
package atpm

import (
	"math"

	"github.com/artt-dev/artt/internal/stats"
	"github.com/artt-dev/artt/traffic"
)

// Config tunes the estimator.
type Config struct {
	AlphaMin, AlphaMax float64
	VolatilityRef      float64
	History            int
	ForgetAfter        int
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{AlphaMin: 0.2, AlphaMax: 0.8, VolatilityRef: 0.5, History: 5, ForgetAfter: 10}
}

// Basis values say where a share came from.
const (
	BasisMeasured    = "measured"
	BasisPrevious    = "previous"
	BasisMeanOfValid = "mean-of-valid"
	BasisEqual       = "equal"
)

// Share is one group's estimate.
type Share struct {
	Node     string
	Replicas []string
	// Load is the smoothed CPU seconds per request (0 when unknown).
	Load float64
	// Alpha is the EWMA weight used this cycle (0 when not updated).
	Alpha float64
	// Share is the group's part of the component's traffic; shares sum to 1.
	Share float64
	Basis string
}

// NewComponent returns an empty estimator for one component (callers keep
// one per component, see traffic.PerComponent).
func NewComponent(cfg Config) *ComponentEstimator {
	return &ComponentEstimator{cfg: cfg, groups: make(map[string]*groupState)}
}

// ComponentEstimator estimates the shares of one component's groups.
type ComponentEstimator struct {
	cfg    Config
	groups map[string]*groupState
}

type groupState struct {
	ewma   float64
	recent []float64
	missed int
}

// Estimate updates the estimates from this cycle's groups and returns their
// shares, in the order of groups. With fresh false the measurements were
// seen before: nothing is learnt from them again, and only the group set
// (pods or nodes gone or back) changes the shares.
func (c *ComponentEstimator) Estimate(groups []traffic.Group, fresh bool) []Share {
	out := make([]Share, len(groups))
	present := make(map[string]bool, len(groups))
	validSum, valid := 0.0, 0
	// Estimates carried over (not measured this cycle) stand in for the
	// mean when nothing was measured, as on the event path.
	keptSum, kept := 0.0, 0
	for i, g := range groups {
		present[g.Node] = true
		out[i] = Share{Node: g.Node, Replicas: names(g)}
		load, ok := g.CostPerRequest()
		st := c.groups[g.Node]
		if !fresh && st != nil {
			ok = false // seen already: reuse the estimate
		}
		switch {
		case ok && st == nil:
			st = &groupState{ewma: load}
			c.groups[g.Node] = st
			st.recent = append(st.recent, load)
			out[i].Load, out[i].Alpha, out[i].Basis = load, 1, BasisMeasured
		case ok:
			st.recent = append(st.recent, load)
			if len(st.recent) > c.cfg.History {
				st.recent = st.recent[len(st.recent)-c.cfg.History:]
			}
			alpha := c.alpha(st.recent)
			st.ewma = alpha*load + (1-alpha)*st.ewma
			out[i].Load, out[i].Alpha, out[i].Basis = st.ewma, alpha, BasisMeasured
		case st != nil:
			out[i].Load, out[i].Basis = st.ewma, BasisPrevious
			keptSum += st.ewma
			kept++
		}
		if ok {
			validSum += out[i].Load
			valid++
		}
	}
	for node, st := range c.groups {
		if !fresh {
			break
		}
		if present[node] {
			st.missed = 0
		} else if st.missed++; st.missed > c.cfg.ForgetAfter {
			delete(c.groups, node)
		}
	}

	if valid == 0 && kept > 0 {
		validSum, valid = keptSum, kept
	}
	if valid > 0 {
		mean := validSum / float64(valid)
		for i := range out {
			if out[i].Basis == "" {
				out[i].Load, out[i].Basis = mean, BasisMeanOfValid
			}
		}
	}
	total := 0.0
	for i, g := range groups {
		if out[i].Basis == "" || out[i].Load <= 0 {
			continue
		}
		out[i].Share = g.Limit() / out[i].Load
		total += out[i].Share
	}
	if !(total > 0) || math.IsInf(total, 0) || anyUnestimated(out) {
		return equalSplit(groups, out)
	}
	for i := range out {
		out[i].Share /= total
	}
	return out
}

// anyUnestimated reports a group with no estimate at all: the shares would
// starve it, so the cycle falls back to an equal split.
func anyUnestimated(out []Share) bool {
	for _, s := range out {
		if s.Basis == "" || s.Load <= 0 {
			return true
		}
	}
	return false
}

func equalSplit(groups []traffic.Group, out []Share) []Share {
	n := 0
	for _, g := range groups {
		n += len(g.Replicas)
	}
	for i, g := range groups {
		out[i].Share = float64(len(g.Replicas)) / float64(n)
		out[i].Basis = BasisEqual
	}
	return out
}

func (c *ComponentEstimator) alpha(recent []float64) float64 {
	if len(recent) < 2 {
		return c.cfg.AlphaMax
	}
	var w stats.Welford
	for _, x := range recent {
		w.Add(x)
	}
	cv := 0.0
	if w.Mean() > 0 {
		cv = w.StdDev() / w.Mean()
	}
	return c.cfg.AlphaMax - (c.cfg.AlphaMax-c.cfg.AlphaMin)*math.Min(1, cv/c.cfg.VolatilityRef)
}

func names(g traffic.Group) []string {
	out := make([]string, len(g.Replicas))
	for i, r := range g.Replicas {
		out[i] = r.Name
	}
	return out
}

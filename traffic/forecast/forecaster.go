package forecast

import (
	"math"
	"slices"

	"github.com/artt-dev/artt/holtkalman"
	"github.com/artt-dev/artt/traffic"
)

// Config holds every knob of the estimator.
type Config struct {
	Noise            holtkalman.Noise
	MaxStep          float64
	UtilizationFloor float64
	MinHistory       int
	ForgetAfter      int
	// MinShare × the fair share (1 / replicas) is the least share a replica
	// keeps, so it keeps receiving requests, and its filter observations.
	MinShare float64
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Noise:   holtkalman.DefaultNoise(),
		MaxStep: 0.5, UtilizationFloor: 0.01, MinHistory: 5, ForgetAfter: 10, MinShare: 0.1,
	}
}

// NewComponent returns an empty estimator for one component (callers keep
// one per component, see traffic.PerComponent).
func NewComponent(cfg Config) *ComponentEstimator {
	return &ComponentEstimator{cfg: cfg, replicas: make(map[string]*replica)}
}

// ComponentEstimator estimates one component's shares.
type ComponentEstimator struct {
	cfg      Config
	replicas map[string]*replica
	// seed is each node's share to start its unknown replicas from, until
	// the next Estimate (Seed).
	seed map[string]float64
}

// Seed starts the next Estimate from the given shares per node (the rule
// in force when a new leader takes over) instead of fair shares: each
// replica the estimator does not know yet gets its node's share divided by
// the node's replicas, so the first step moves every share by at most the
// usual bound from where the last leader left it. Nodes left out start as
// before.
func (c *ComponentEstimator) Seed(shares map[string]float64) { c.seed = shares }

// Replicas is the number of replicas the estimator tracks.
func (c *ComponentEstimator) Replicas() int { return len(c.replicas) }

// NodeShares is the estimator's share per node, summed over the node's
// replicas (a seed not yet estimated from stands for them): what Seed
// takes.
func (c *ComponentEstimator) NodeShares() map[string]float64 {
	out := make(map[string]float64)
	for _, r := range c.replicas {
		out[r.node] += r.share
	}
	for node, w := range c.seed {
		if _, ok := out[node]; !ok {
			out[node] = w
		}
	}
	return out
}

type replica struct {
	filter holtkalman.Filter
	node   string
	share  float64
	missed int
}

// GroupEstimate is one group's share with its replicas' forecasts.
type GroupEstimate struct {
	Node      string
	Share     float64
	Basis     string
	Forecasts []traffic.ReplicaForecast
}

// Basis values.
const (
	BasisForecast  = "forecast"
	BasisWarmStart = "warm start"
)

// Estimate updates every replica's filter with this interval's CPU, warm
// starts new replicas, and returns the groups' shares (in groups' order).
// With learn false the measurements were seen before: filters are not
// updated and shares not shifted again; replicas that left drop out and new
// ones are warm-started, and the shares are renormalised.
func (c *ComponentEstimator) Estimate(groups []traffic.Group, learn bool) []GroupEstimate {
	all := c.observe(groups, learn)
	if learn {
		c.forgetAbsent(all)
	}
	if len(all) == 0 {
		return nil
	}
	shares, loads := c.shift(all, learn)
	return report(groups, all, shares, loads)
}

// entry is one replica of this Estimate: its measurement, its group's
// index, its state, and the replica it was warm-started from ("" for none).
type entry struct {
	r     traffic.Replica
	group int
	state *replica
	warm  string
}

// observe finds or warm-starts every replica's state and, with learn
// set, folds the measurements into its filter.
func (c *ComponentEstimator) observe(groups []traffic.Group, learn bool) []entry {
	var all []entry
	cost := nodeCosts(groups)
	existing := c.referenceCandidates()
	meanShare := c.meanShare()
	seeded := c.seededShares(groups)
	c.seed = nil
	served, sharesKnown := c.served(groups)
	for gi, g := range groups {
		for _, r := range g.Replicas {
			st, ok := c.replicas[r.Name]
			warm := ""
			if !ok {
				st = &replica{node: r.Node, share: meanShare}
				if w, ok := seeded[r.Node]; ok {
					st.share = w
				}
				if ref := c.pickReference(existing, r.Node); ref != "" {
					refState := c.replicas[ref]
					k := 1.0
					if a, b := cost[r.Node], cost[refState.node]; a > 0 && b > 0 {
						k = a / b
					}
					st.filter = refState.filter.Scaled(k)
					warm = ref
				}
				c.replicas[r.Name] = st
			}
			st.node = r.Node
			if learn {
				// The observation is utilisation per unit of traffic share:
				// it moves with demand and node speed, not with the shares
				// ARTT itself sets, so forecasting it does not chase our own
				// steps.
				if share := r.Requests / served; sharesKnown && share > 0 && !math.IsNaN(r.CPU) {
					st.filter.Update(r.CPU/r.Limit()/share, c.cfg.Noise)
				} else {
					st.filter.Skip(c.cfg.Noise)
				}
			}
			all = append(all, entry{r: r, group: gi, state: st, warm: warm})
		}
	}
	return all
}

// served is the component's request rate the replicas' shares are of. A
// replica whose count is missing skips its own filter only; its traffic
// is taken at the share ARTT last gave it (none for a replica not routed
// to yet), so its peers' shares stay fractions of the whole component.
// known is false when no share can be told.
func (c *ComponentEstimator) served(groups []traffic.Group) (served float64, known bool) {
	var missingShare float64
	for _, g := range groups {
		for _, r := range g.Replicas {
			if math.IsNaN(r.Requests) {
				if st, ok := c.replicas[r.Name]; ok {
					missingShare += st.share
				}
				continue
			}
			served += r.Requests
		}
	}
	known = served > 0 && missingShare < 1
	if known {
		served /= 1 - missingShare
	}
	return served, known
}

// forgetAbsent drops replicas absent for more than ForgetAfter fresh
// measurements.
func (c *ComponentEstimator) forgetAbsent(all []entry) {
	present := make(map[string]bool, len(all))
	for _, e := range all {
		present[e.r.Name] = true
	}
	for name, st := range c.replicas {
		if present[name] {
			st.missed = 0
		} else if st.missed++; st.missed > c.cfg.ForgetAfter {
			delete(c.replicas, name)
		}
	}
}

// shift is the replicas' shares, renormalised, moved by one bounded step
// toward even forecast utilisation with fresh measurements, and floored;
// and their forecast loads.
func (c *ComponentEstimator) shift(all []entry, learn bool) (shares, loads []float64) {
	shares = make([]float64, len(all))
	loads = make([]float64, len(all))
	for i, e := range all {
		shares[i] = e.state.share
		if !(shares[i] > 0) {
			shares[i] = 1
		}
		loads[i] = e.state.filter.Forecast()
	}
	shares = normalized(shares)
	if learn {
		shares = boundedShift(shares, loads, c.cfg.MaxStep, c.cfg.UtilizationFloor)
	}
	return floorShares(shares, c.cfg.MinShare), loads
}

// report keeps each replica's new share and sums them by group, with the
// replicas' forecasts.
func report(groups []traffic.Group, all []entry, shares, loads []float64) []GroupEstimate {
	out := make([]GroupEstimate, len(groups))
	for gi, g := range groups {
		out[gi] = GroupEstimate{Node: g.Node, Basis: BasisForecast}
	}
	for i, e := range all {
		e.state.share = shares[i]
		g := &out[e.group]
		g.Share += shares[i]
		alpha, beta := e.state.filter.Factors()
		util := math.NaN()
		if !math.IsNaN(e.r.CPU) {
			util = e.r.CPU / e.r.Limit()
		}
		g.Forecasts = append(g.Forecasts, traffic.ReplicaForecast{
			Replica: e.r.Name, Utilization: util, Forecast: loads[i] * shares[i],
			Alpha: alpha, Beta: beta, Share: shares[i], WarmStartedFrom: e.warm,
		})
		if e.warm != "" {
			g.Basis = BasisWarmStart
		}
	}
	return out
}

// seededShares is each seeded node's share per replica among groups.
func (c *ComponentEstimator) seededShares(groups []traffic.Group) map[string]float64 {
	if c.seed == nil {
		return nil
	}
	out := make(map[string]float64, len(c.seed))
	for _, g := range groups {
		if w, ok := c.seed[g.Node]; ok && w > 0 && len(g.Replicas) > 0 {
			out[g.Node] = w / float64(len(g.Replicas))
		}
	}
	return out
}

// referenceCandidates lists the replicas known before this cycle, sorted by
// name.
func (c *ComponentEstimator) referenceCandidates() []string {
	names := make([]string, 0, len(c.replicas))
	for name := range c.replicas {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// pickReference chooses the warm-start reference for a new replica on node
// among candidates: one with at least MinHistory observations, on the same
// node if any, else the one with the longest history; ties go to the first
// name. It returns "" when no candidate has enough history.
func (c *ComponentEstimator) pickReference(candidates []string, node string) string {
	best := ""
	for _, name := range candidates {
		st := c.replicas[name]
		if st.filter.Observations() < c.cfg.MinHistory {
			continue
		}
		if best == "" {
			best = name
			continue
		}
		b := c.replicas[best]
		if same, bestSame := st.node == node, b.node == node; same != bestSame {
			if same {
				best = name
			}
			continue
		}
		if st.filter.Observations() > b.filter.Observations() {
			best = name
		}
	}
	return best
}

// meanShare is the mean share of the replicas seen last cycle, summed in
// name order so the result is the same bit for bit.
func (c *ComponentEstimator) meanShare() float64 {
	sum, n := 0.0, 0
	for _, name := range c.referenceCandidates() {
		if st := c.replicas[name]; st.share > 0 && st.missed == 0 {
			sum += st.share
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// nodeCosts is the per-request CPU cost per node for the component's
// groups, where known.
func nodeCosts(groups []traffic.Group) map[string]float64 {
	out := make(map[string]float64, len(groups))
	for _, g := range groups {
		if c, ok := g.CostPerRequest(); ok {
			out[g.Node] = c
		}
	}
	return out
}

func normalized(xs []float64) []float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	// Shares already summing to 1 within rounding stay exactly as they are:
	// dividing again would move their last bits at every call, and a
	// reallocation with unchanged measurements must give unchanged shares.
	if math.Abs(sum-1) <= 1e-12 {
		return xs
	}
	for i := range xs {
		xs[i] /= sum
	}
	return xs
}

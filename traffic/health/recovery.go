package health

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// A group cut for a higher CPU per request gets a probe's share, and a
// probe's share can take minutes to pool MinCostRequests: a node back at
// full speed would keep its last judged slowdown, and its cut, all that
// time. Its filling pool is read instead by a sequential test between the
// held judgement and health, as Wald's SPRT reads it: the likelihood ratio
// of the pool's requests under "as usual" against "as slow as judged". For
// exponentially distributed costs (a coefficient of variation of 1, as the
// pool's error assumes) the pool's total CPU and request count are all the
// ratio needs. Under the held slowdown the ratio is a martingale, so by
// Ville's inequality it ever reaches 1/ε with probability at most ε, however
// often the pool is looked at.

// recoveryEvidence is ln(1/ε) for ε the chance that a healthy group's full
// pool reads past DegradedCostFactor: a held judgement is set aside only on
// evidence as strong as the one that made it. For the defaults (100
// requests, 1.5) ε is 5.9e-6, ln(1/ε) 12.0: about 30 requests for a group
// judged 2.9 times slower that is back at full speed, 60 for 2 times.
func recoveryEvidence(cfg Config) float64 {
	tail := mathext.GammaIncRegComp(cfg.MinCostRequests, cfg.MinCostRequests*cfg.DegradedCostFactor)
	return -math.Log(tail)
}

// refutedSlowdown reads the pool still filling once the held slowdown
// alone keeps the group cut. When the pool refutes the held judgement
// (its log-likelihood ratio of a request costing ref, as usual, against
// costing what the judged pool's did reaches the tracker's recovery
// evidence), it returns the pool's own slowdown against ref, ok true;
// otherwise the held judgement stands. ref is the cost a request needs on
// the group as usual, its peers' change included.
func (t *Tracker) refutedSlowdown(g *group, ref float64) (slow float64, ok bool) {
	held, n, total := g.heldCost, g.cost.requests, g.cost.sum
	if !(g.judged && g.slow > t.cfg.DegradedCostFactor && ref > 0 && held > ref && n > 0) {
		return 0, false
	}
	logRatio := n*math.Log(held/ref) - total*(1/ref-1/held)
	if logRatio < t.recoveryEvidence {
		return 0, false
	}
	return total / n / ref, true
}

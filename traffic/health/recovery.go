package health

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// A group cut for a higher CPU per request gets a probe's share, and a
// probe's share can take minutes to pool MinCostRequests: a node back at
// full speed would keep its last judged slowdown, and its cut, all that
// time. Its readings are read instead by a test for the change from "as
// slow as judged" to "as usual", Page's CUSUM: the log-likelihood ratio of
// the requests since the test last restarted, restarted whenever it favours
// the held slowdown, so that requests served before the recovery (the
// pool's first, often) do not have to be outweighed first. For
// exponentially distributed costs (a coefficient of variation of 1, as the
// pool's error assumes) a reading's CPU and request count are all the ratio
// needs. Under the held slowdown the ratio from any one start is a
// martingale, so by Ville's inequality it ever reaches e^h with
// probability at most e^-h; a restart can fall at any of a pool's requests,
// so over a pool the chance of a false recovery is at most
// MinCostRequests·e^-h.

// recoveryEvidence is h = ln(MinCostRequests ÷ ε), for ε the chance that a
// healthy group's full pool reads past DegradedCostFactor: a held judgement
// is set aside only on evidence as strong as the one that made it. For the
// defaults (100 requests, 1.5) ε is 5.9e-6 and h 16.6: about 41 requests
// after its recovery for a group judged 2.9 times slower, 86 for twice.
// A configuration whose pool or bar gives no such chance (no pool, no bar
// past the usual cost) gets no test: +Inf.
func recoveryEvidence(cfg Config) float64 {
	n, bar := cfg.MinCostRequests, cfg.DegradedCostFactor
	if !(n > 0 && bar > 1 && !math.IsInf(n*bar, 1)) {
		return math.Inf(1)
	}
	return math.Log(n) - math.Log(mathext.GammaIncRegComp(n, n*bar))
}

// recovery is the state of a group's test: the log-likelihood ratio since
// its last restart, and the requests behind it (the newest of the group's
// cost pool).
type recovery struct {
	evidence float64
	since    pool
}

// open says the test has a run under way: requests since its restart
// that favour the usual cost over the held one, not enough yet to pass.
func (r recovery) open() bool { return r.since.requests > 0 }

// poolWaits says a full pool whose reading is past the bar waits for the
// test: its newest requests may be a recovery the test is still weighing,
// and judged with the older ones they read as a mix of the two regimes,
// past the bar and held until a full pool of the recovered group came. A
// pool under the bar with them is recovered anyway, and is judged.
func (r recovery) poolWaits(reading, bar float64) bool {
	return r.open() && reading > bar
}

// fold adds one reading, the mean over n requests, to the test of "as
// held" against "as usual" (held and usual, the per-request means each
// regime gives). It restarts the test when the evidence favours the held
// regime, and says whether the evidence reached h.
func (r *recovery) fold(held, usual, reading, n, h float64) (passed bool) {
	r.evidence += n*math.Log(held/usual) - reading*n*(1/usual-1/held)
	r.since.add(reading, n)
	if r.evidence <= 0 {
		*r = recovery{}
		return false
	}
	return r.evidence >= h
}

// refutedSlowdown folds one cost reading over n requests into the group's
// test while its held slowdown alone keeps it cut (the test restarts
// otherwise). When the test refutes the held judgement it returns the
// slowdown of the requests since the test's restart, against ref, ok true,
// and their cost becomes the held one (a node that is better but still
// past the bar is tested against what it is now); otherwise the held
// judgement stands. ref is the cost a request needs on the group as usual,
// its peers' change included.
func (t *Tracker) refutedSlowdown(g *group, ref, cost, n float64) (slow float64, ok bool) {
	held := g.heldCost
	if !(g.judged && g.slow > t.cfg.DegradedCostFactor && ref > 0 && held > ref) {
		g.recovery = recovery{}
		return 0, false
	}
	if !g.recovery.fold(held, ref, cost, n, t.recoveryEvidence) {
		return 0, false
	}
	// The pool's requests before the run are the refuted regime's: the
	// next full pool is the recovered group's alone.
	g.cost = g.recovery.since
	cost, requests, _ := g.recovery.since.take(0) // it holds requests: the evidence is positive
	g.recovery, g.heldCost, g.heldRequests = recovery{}, cost, requests
	return cost / ref, true
}

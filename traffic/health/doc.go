// Package health tracks each replica group's health the way adaptive load
// balancers do (see adaptive-lb in the design notes). A tracker is updated
// whenever the policy allocates: every cycle, and on the pod and node events
// that make artt-traffic reallocate between cycles. It reacts to what the
// last measurement shows, so its reaction time is bounded by the measurement
// interval (the scrape and rate() window), not by the allocation cycle.
//
// States, from each observation of the group's p95 latency and error rate
// (judged against its own baseline and against the other groups of its
// component, so a slowdown they all share drops none of them):
//
//   - Degraded as soon as p95 > DegradedLatencyFactor (2) × baseline or the
//     error rate > DegradedErrorRate (5%).
//   - Unhealthy when p95 > UnhealthyLatencyFactor (5) × baseline or the error
//     rate > UnhealthyErrorRate (50%) has held continuously for UnhealthyAfter
//     (5 s): consistent failure, not one bad sample.
//   - Back to Healthy only after RecoverAfter (30 s) of continuously good
//     observations. Its weight then climbs back from its last Degraded weight
//     by at most a factor 1 + RestoreStep (0.5) per RestoreInterval (30 s),
//     the same bound as the share estimator's steps: a group cut to a tenth
//     does not take ten times its traffic in one step the moment it looks
//     well. Cutting is immediate; restoring is gradual. An Unhealthy group
//     gets no traffic, so no evidence: after RecoverAfter it is moved to
//     Degraded, where it receives probe traffic, and it goes back to
//     Unhealthy if it still fails.
//
// Latencies reach the tracker load-free (LoadFree: the p95 times 1 − ρ, the
// processor-sharing stretch taken out, per pod by the allocator), and the
// baseline is learned in the same units: a group is judged by its speed,
// not by how busy it was (LoadFree says why a raw p95 cannot be).
// Latency is only evidence while the group's CPU utilisation is below
// BusyUtilization (0.5): a group that is slow because it is busy is
// overloaded, not sick, and moving its traffic is the share estimator's job;
// penalising it as well drives the other groups into overload in turn. The
// same holds per pod, and the allocator leaves a busy pod's latency out of
// its group's p95 before it gets here: one pod draining a backlog beside
// new idle pods is load, though the group's mean is under the bar. A
// group slow with idle CPU (pauses, a bad disk, a noisy neighbour) is sick.
// The bar is where one interval's utilisation stops being precise enough
// to take the load out: an error of 0.1 in ρ moves 1/(1 − ρ) by a fifth at
// ρ = 0.5 and by half at 0.8, and an interval that averages a burst with
// calm hides the overload inside it.
//
// What tells "slow because broken" from "slow because loaded" at any load is
// the CPU time per request: load does not change it, a throttled or
// contended node (a noisy neighbour, thermal throttling, a failing disk
// causing retries) raises it. Each group keeps a cost baseline (the first
// CPU seconds per request seen, then an exponential average with half-life
// CostBaselineHalfLife, 2 minutes, in time rather than observations, so it
// does not depend on how often the group is measured), and its
// slowdown is cost ÷ baseline divided by the peers' median of the same ratio
// when that is above 1 (a heavier request mix everywhere is nobody's fault).
// A slowdown above DegradedCostFactor (1.5: the group has lost a third of its
// capacity, beyond the noise of a per-interval cost) is Degraded whatever the
// utilisation, and the group's weight is at most 1 ÷ slowdown, the share at
// which its utilisation stays where it was: protection acts at the next
// measurement, without waiting for the forecasts. The baseline keeps
// learning, so a lasting slowdown hands over to the share estimator, which
// has moved its share by then (three 30 s cycles of at most ×1.5 each cover a
// threefold slowdown), within a few minutes (a threefold slowdown reads below
// 1.5 after two half-lives); a recovery shows as a falling cost and restores
// the group after RecoverAfter.
//
// A slowdown that leaves the CPU per request as it was (a neighbour on the
// node's cores, a quota above the pods) shows as waiting instead: the
// observation's CPUStretch (traffic.Group.CPUStretch), the factor by which
// the group's work took longer than its own limits explain, against the
// peers' median when that is above 1. It multiplies the cost slowdown, is
// judged on the same bar (DegradedCostFactor) at every interval without a
// pool (a ratio of two times the kernel counts over the whole interval,
// which a starved pod that finishes few requests still reads), and bounds
// a Degraded group's weight by 1 ÷ stretch, held at its largest until the
// group is Healthy again (holdStarved says why).
//
// A cost reading is judged only once it pools MinCostRequests (100)
// requests: a request's work varies (exponentially in the common case, a
// coefficient of variation of 1), so the CPU per request over n requests is
// off by about 1/√n, a tenth at 100, where DegradedCostFactor is five of
// those errors away; one interval of 35 requests is off by a sixth, and a
// baseline seeded from one low reading would read a healthy node as slowed
// for minutes. A busy group pools one interval; a quiet one a few,
// and its last judged slowdown stands until the next, unless the readings
// after it refute it: a group cut for its cost gets a probe's share, which
// takes minutes to pool 100 requests, so its readings are watched for the
// change back to health (Page's CUSUM, refutedSlowdown), which sets the
// held slowdown aside, for the reading of the requests since the change,
// on evidence as strong as a full pool's (about 41 requests after its
// recovery for a group judged 2.9 times slower). The pool and the test
// share the change point: while the test has a run under way a full pool
// past the bar waits, since judged with the requests before the run a
// recovery reads as a mix of the two regimes (2.07 times slower for 72
// requests at the held threefold cost and 30 at the usual), a judgement of
// neither that the test must then refute afresh (a pool under the bar with
// them is recovered anyway, and is judged); and once the test sets the
// judgement aside, the pool keeps only the requests since the change, so
// the refuted regime's do not cut the group again. The requests an
// interval held are its request rate times the time since the group's
// last observation (the measurement interval, where every measurement is
// observed). Where a reading covers less than that time (artt-traffic's
// irate over a scrape shorter than its --protect-interval), the count is
// high by their ratio and a pool is judged on fewer requests; where it
// covers more, on more.
//
// Latency readings are pooled the same way, to MinLatencyRequests (100):
// the p95 of n exponential response times is off by about 1.45/√n, a
// ratio of two such readings by √2 times that, a fifth at 100 requests,
// where DegradedLatencyFactor is 3.4 of those errors away (ln 2 ÷ 0.205),
// and more once the baseline averages several pools. A quiet pod's 5 s
// reading of 30 requests is off by a quarter, and the bursts of Poisson
// arrivals within so short an interval stretch a p95 that the interval's
// mean utilisation cannot take out. The pooled p95 is the request-weighted
// mean of the readings' (a sample p95's bias is a few percent at 30
// requests), so a quiet group is not cut on one reading of a few dozen
// requests.
// A group cut for its latency is watched for its recovery by the same
// test (refutedRatio), on each reading's load-free mean latency
// (Observation.MeanMs, the histogram's sum over its count) against the
// judged pool's mean and that mean over the judged ratio, with its own
// bar: ln(MinLatencyRequests ÷ ε) for ε the chance that a healthy pool
// reads past DegradedLatencyFactor, 12.5 for the defaults (about 30
// requests after the recovery of a group judged three times slower). A
// full latency pool past the bar waits while that test weighs a run, and
// the pool starts afresh when it sets the ratio aside. A group whose
// readings carry no mean waits for its next full pool.
//
// The baseline is the first pooled p95, then an EWMA (BaselineAlpha 0.05)
// of the pooled p95s while Healthy and within DegradedLatencyFactor of the
// baseline. The performance score follows the adaptive-lb quality
// q = clamp(1 − max(0, p95/baseline − 1) − 10·errorRate, MinWeight, 1) with
// exponential memory of half-life ScoreHalfLife (10 s); entering Unhealthy
// resets it to MinWeight. Weights: Healthy 1,
// Degraded max(MinWeight, score), Unhealthy 0; MinWeight (0.1) keeps probe
// traffic flowing to a struggling group. Missing measurements (NaN) are no
// evidence either way: state and timers stay.
//
// Each status also says how much of its usual capacity the group is
// trusted with (Status.Capacity): 1 ÷ its slowdown while Degraded for
// being slow, its restore weight while it climbs back, none while
// Unhealthy or cut for errors. The weight says how far to cut; the
// capacity says what the group can still serve when the groups left
// cannot carry what the cut moved onto them, and the allocator gives it
// back that much (see allocate's giveBack).
package health

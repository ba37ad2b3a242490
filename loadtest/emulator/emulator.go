// Package emulator is artt-lab's discrete-event model of a heterogeneous
// Kubernetes cluster running a microservice call graph. It drives the same
// code a cluster runs: routing tables come from the traffic policies in
// package traffic/allocate (what artt-traffic runs), and autoscaling asks
// metric.ParseSettings and metric.Evaluate (package scaler/metric, what
// artt-scaler's gRPC handlers call) before applying the Kubernetes HPA algorithm.
//
// The model, in brief (docs/lab.md has the details and their sources):
//
//   - Nodes have cores and a speed; a request's CPU demand (drawn around its
//     component's cost) is divided by the speed of the node serving it.
//   - A pod serves its in-service requests by processor sharing within its
//     CPU limit (each request at most one core); with Workers > 0 it admits
//     that many at once and queues the rest first come first served. When
//     the pods of a node want more cores than the node has, all of them slow
//     down in proportion.
//   - A request does its CPU work, then calls its downstream components one
//     after another, synchronously; each hop costs the one-way node-to-node
//     delay plus jitter, each way.
//   - Clients send open-loop Poisson arrivals at the workload's rate to an
//     ingress gateway replica and give up after the timeout; servers still
//     spend the CPU.
//   - Every caller pod and gateway replica is an Envoy with its own state
//     (sidecar.go, envoylb.go, outlier.go): requests in flight per host,
//     round-robin positions, a locality schedule over the integer weights
//     artt-traffic would write, and an outlier detector.
//   - Every sample interval the emulator records what Prometheus would
//     scrape; the policy's fast path (ARTT's Protect) reads the last sample
//     every sample interval and the traffic controller every cycle, both
//     at a phase of their own (ARTT also at once on pod changes and
//     failures); KEDA polls and the HPA syncs on their own periods; new pods
//     start after a delay on the least-allocated node that fits their CPU
//     request.
package emulator

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/istio"
)

// Emulator runs one scenario under one run's policies.
type Emulator struct {
	sc  *scenario.Scenario
	run scenario.Run
	// rng is the policies' stream; arrivals and draws are the workload's
	// (package workload, draws.go).
	rng      *rand.Rand
	arrivals *rand.Rand
	uids     *rand.Rand // the pods' UIDs (scaledown.go)
	draws    *workload.CallDraws
	arrived  uint64 // external arrivals so far
	now      float64
	q        eventQueue
	rate     workload.Rate

	nodes    []*node
	comps    []*component
	byName   map[string]*component
	entry    *component
	ingress  []*sidecar // the ingress gateway's replicas
	delayMs  [][]float64
	timeout  float64
	warmup   float64
	duration float64

	policy     traffic.Policy // nil for data-plane-only routing
	autoscaler autoscaler
	placer     placer
	free       []*request
	pods       []*replica // every pod ever created

	// grpc is true when proxyless gRPC clients carry the routes
	// (grpclb.go), false for Envoy sidecars (envoylb.go).
	grpc bool
	// localityNode maps an Istio locality back to its node index.
	localityNode map[string]int
	// scratch holds a pick's healthy hosts when some are ejected.
	scratch []*replica

	res       *collector
	progress  func(simSeconds float64)
	debug     func(string)
	weightLog func(component string, ds []istio.Distribute)
	allocated func(at float64, a traffic.Allocation)
	// replayed, when set, are the routing tables in force instead of the
	// run's policy's (replay.go).
	replayed []outcome.TableChange
	// phases place the run on the wall clock (scrapes.go); scrapes is
	// Prometheus' view of the pods KEDA scales on artt-scaler, nil when
	// none is.
	phases   ScrapePhases
	podsIdle float64
	scrapes  *scrapeModel
	// measured are the samples artt-traffic's last pass read, taken at
	// measuredAt: a reallocation between passes reads them again.
	measured   map[int]podSample
	measuredAt float64
	eventsRun  int64
	hops       int64
	crossHops  int64
	// beforeArrival, when set, sees the cluster just before each external
	// arrival: by PASTA, Poisson arrivals see time averages (tests use it
	// to measure queue-length distributions).
	beforeArrival func()
}

// Options tune a run beyond the scenario.
type Options struct {
	// Progress, when set, is called about once per simulated second.
	Progress func(simSeconds float64)
	// Allocate overrides the traffic policies' options (tests use it to
	// show the lab runs the real allocator).
	Allocate *AllocateOptions
	// AllocationLog, when set, receives one line per routed component at
	// every allocation: shares, health, basis, forecasts and routes.
	AllocationLog func(string)
	// Weights, when set, receives every locality weight table installed,
	// exactly as artt-traffic would write it to a DestinationRule.
	Weights func(component string, ds []istio.Distribute)
	// Allocated, when set, receives every allocation installed, with the
	// simulated time in seconds.
	Allocated func(at float64, a traffic.Allocation)
	// Replay, when set, are the routing tables the run has, in force at
	// their times, in place of its policy's: the lab given the tables a
	// live run had. The run's balancer inside a locality is unchanged.
	Replay []outcome.TableChange
	// PolicyDraw selects another draw of the policies' own random stream
	// (balancers' picks, probes' jitter, placement's ties) on the same
	// requests; 0 is the seed's. A live run's picks are one more draw, so
	// the spread over draws is how far one prediction can miss one run.
	PolicyDraw uint64
	// Phases, when set, place the run on the wall clock in place of the
	// seed's draw: the phases a live run had.
	Phases *ScrapePhases
	// PodsIdle is how long the initial pods ran before the load, in
	// seconds: their counters stood at zero all that time (0: they start
	// with it). The live harness's pods idle while it sets the run up.
	PodsIdle float64
}

// New builds the emulated cluster for a scenario and run. rate is the
// workload's arrival rate (see package workload).
func New(sc *scenario.Scenario, run scenario.Run, rate workload.Rate, opts Options) (*Emulator, error) {
	e := &Emulator{
		sc: sc, run: run, rate: rate, q: newEventQueue(), grpc: sc.Cluster.DataPlane == scenario.DataPlaneGRPC,
		rng:          rand.New(rand.NewPCG(sc.Seed, 0x5eed+opts.PolicyDraw)),
		arrivals:     workload.Arrivals(sc.Seed),
		uids:         rand.New(rand.NewPCG(sc.Seed, uidStream)),
		draws:        workload.NewCallDraws(sc.Seed),
		byName:       make(map[string]*component),
		timeout:      sc.Workload.Timeout.Seconds(),
		warmup:       sc.Warmup.Seconds(),
		duration:     sc.Duration.Seconds(),
		progress:     opts.Progress,
		debug:        opts.AllocationLog,
		weightLog:    opts.Weights,
		allocated:    opts.Allocated,
		replayed:     opts.Replay,
		localityNode: make(map[string]int, len(sc.Cluster.Nodes)),
	}
	idx := map[string]int{}
	for i, n := range sc.Cluster.Nodes {
		e.nodes = append(e.nodes, &node{idx: i, name: n.Name, cores: n.Cores, speed: n.Speed, ready: true})
		idx[n.Name] = i
		e.localityNode[localityOf(e.nodes[i])] = i
	}
	e.ingress = newIngress(e.nodes, sc.Cluster.Ingress, idx)
	e.delayMs = sc.Cluster.DelayMatrix()
	for i, c := range sc.Application.Components {
		if run.Floor && c.Autoscale {
			c.Replicas = c.MaxReplicas // capacity beyond demand throughout
		}
		comp := &component{idx: i, spec: c, readyOn: make([][]*replica, len(e.nodes))}
		e.comps = append(e.comps, comp)
		e.byName[c.Name] = comp
	}
	for _, comp := range e.comps {
		for _, callee := range comp.spec.Calls {
			comp.calls = append(comp.calls, e.byName[callee])
			e.byName[callee].upstream = true
		}
	}
	e.entry = e.byName[sc.Application.Entry]
	e.entry.upstream = true
	e.res = newCollector(e)
	if err := e.placeOnTheClock(opts); err != nil {
		return nil, err
	}

	var err error
	if opts.Replay != nil {
		err = e.checkReplay(opts.Replay) // the tables stand in for the policy
	} else {
		e.policy, err = newPolicy(run.Routing, opts.Allocate)
	}
	if err != nil {
		return nil, err
	}
	if e.autoscaler, err = newAutoscaler(e, run); err != nil {
		return nil, err
	}
	if e.placer, err = newPlacer(e, run.Placement); err != nil {
		return nil, err
	}
	initial, err := e.placer.initial()
	if err != nil {
		return nil, err
	}
	for _, comp := range e.comps {
		for i := range comp.spec.Replicas {
			if _, err := e.createPod(comp, initial[comp.idx][i], true); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}

// placeOnTheClock sets the run's phases on the wall clock, the seed's
// draw or the given ones, and how long its pods idled before the load.
func (e *Emulator) placeOnTheClock(opts Options) error {
	sc := e.sc
	e.phases = DrawPhases(sc)
	if opts.Phases != nil {
		if err := opts.Phases.check(sc.Control.SampleInterval.Seconds(), sc.Control.PollingInterval.Seconds()); err != nil {
			return err
		}
		e.phases = *opts.Phases
	}
	if !(opts.PodsIdle >= 0 && opts.PodsIdle < math.Inf(1)) {
		return fmt.Errorf("podsIdle is %v s, want a finite time at or above 0", opts.PodsIdle)
	}
	e.podsIdle = opts.PodsIdle
	return nil
}

// hop returns one network traversal's delay in seconds, with jitter drawn
// from rng.
func (e *Emulator) hop(from, to *node, rng *rand.Rand) float64 {
	ms := e.delayMs[from.idx][to.idx]
	if j := e.sc.Cluster.Delays.JitterMs; j > 0 && from != to {
		ms = math.Max(0, ms+j*rng.NormFloat64())
	}
	return ms / 1000
}

// Run simulates the scenario and returns its result.
func (e *Emulator) Run() (*outcome.Result, error) {
	e.q.push(event{at: e.rate.Next(0, e.arrivals), kind: evArrival})
	e.schedulePasses()
	if e.autoscaler != nil {
		e.q.push(event{at: e.autoscaler.first(), kind: evAutoscale})
	}
	for i, ev := range e.sc.Events {
		e.q.push(event{at: ev.At.Seconds(), kind: evInject, idx: i})
	}
	for i, ch := range e.replayed {
		e.q.push(event{at: max(ch.AtS, 0), kind: evReplay, idx: i})
	}
	e.watchCapacity()
	e.q.push(event{at: e.duration, kind: evStop})
	end := e.duration + e.timeout
	nextProgress := 1.0
	for e.q.len() > 0 {
		ev := e.q.pop()
		if ev.at > end {
			break
		}
		e.now = ev.at
		e.eventsRun++
		if e.progress != nil && e.now >= nextProgress {
			e.progress(e.now)
			nextProgress = math.Floor(e.now) + 1
		}
		if err := e.dispatch(ev); err != nil {
			return nil, fmt.Errorf("at %.3fs: %w", e.now, err)
		}
	}
	e.now = end
	return e.res.finish(), nil
}

func (e *Emulator) dispatch(ev event) error {
	switch ev.kind {
	case evArrival:
		if e.now < e.duration {
			if e.beforeArrival != nil {
				e.beforeArrival()
			}
			e.arrive()
			e.q.push(event{at: e.rate.Next(e.now, e.arrivals), kind: evArrival})
		}
	case evDeliver:
		e.deliver(ev.req)
	case evCompletion:
		if ev.rep.version == ev.version {
			e.complete(ev.rep)
		}
	case evResponse:
		e.response(ev.req)
	case evSample:
		e.sample()
		e.q.push(event{at: e.now + e.sc.Control.SampleInterval.Seconds(), kind: evSample})
	case evProtect:
		e.protect()
		e.q.push(event{at: e.now + e.sc.Control.SampleInterval.Seconds(), kind: evProtect})
	case evScrape:
		e.scrapes.scrape(ev.rep)
	case evTraffic:
		e.allocate()
		e.q.push(event{at: e.now + e.sc.Control.TrafficCycle.Seconds(), kind: evTraffic})
	case evAutoscale:
		if err := e.autoscaler.tick(); err != nil {
			return err
		}
		e.q.push(event{at: e.now + e.autoscaler.period(), kind: evAutoscale})
	case evPodReady:
		e.podReady(ev.rep)
	case evInject:
		return e.inject(e.sc.Events[ev.idx])
	case evReplay:
		e.replay(ev.idx)
	case evCapacity:
		e.res.stepsCame()
		e.checkCapacity()
	case evStop:
	}
	return nil
}

// newRequest takes a request from the free list.
func (e *Emulator) newRequest() *request {
	if n := len(e.free); n > 0 {
		r := e.free[n-1]
		e.free = e.free[:n-1]
		return r
	}
	return &request{}
}

func (e *Emulator) release(r *request) {
	*r = request{}
	e.free = append(e.free, r)
}

// arrive starts an external request at an ingress gateway replica, chosen
// at random as the load balancer in front of the gateway does.
func (e *Emulator) arrive() {
	root := &rootRequest{start: e.now, measured: e.now >= e.warmup}
	e.res.started(root)
	g := e.ingress[0]
	if len(e.ingress) > 1 {
		g = e.ingress[e.arrivals.IntN(len(e.ingress))]
	}
	r := e.newRequest()
	r.root, r.comp, r.from, r.key = root, e.entry, g.node, workload.RootKey(e.arrived)
	e.arrived++
	e.send(r, g)
}

// send routes a request through its caller's sidecar and schedules its
// delivery.
func (e *Emulator) send(r *request, via *sidecar) {
	rep := e.pick(via, r.comp)
	if rep == nil { // no healthy endpoint: the sidecar answers 503 at once
		r.failed = true
		e.answer(r, r.from)
		return
	}
	r.rep = rep
	r.via = e.cluster(via, r.comp)
	r.via.sent(rep)
	r.sentAt = e.now
	rep.outstanding++
	r.comp.countInFlight(e.now, 1)
	e.hops++
	if r.from != rep.node {
		e.crossHops++
	}
	d := e.hop(r.from, rep.node, e.draws.Of(r.key, workload.DrawHopOut))
	r.root.network += d
	e.q.push(event{at: e.now + d, kind: evDeliver, req: r})
}

// deliver starts a request's CPU work at its replica.
func (e *Emulator) deliver(r *request) {
	rep := r.rep
	if rep.state == gone {
		r.failed = true
		e.answer(r, rep.node)
		return
	}
	if rep.arrivals++; rep.arrivals == 1 {
		rep.firstArrival = e.now
	}
	r.arrived = e.now
	r.work = r.comp.spec.DrawCPU(e.draws.Of(r.key, workload.DrawWork))
	if rep.comp.spec.Workers > 0 && rep.inService.Len() >= rep.comp.spec.Workers {
		rep.waiting = append(rep.waiting, r)
		return
	}
	e.admit(rep, r)
}

// admit puts a request in service.
func (e *Emulator) admit(rep *replica, r *request) {
	e.advanceNode(rep.node)
	r.finishV = rep.v + r.work
	rep.inService.Push(r)
	e.retime(rep)
}

// complete finishes the requests whose work is done.
func (e *Emulator) complete(rep *replica) {
	e.advanceNode(rep.node)
	var done []*request
	for rep.inService.Len() > 0 && (*rep.inService.Min()).finishV <= rep.v+1e-12 {
		done = append(done, rep.inService.Pop())
	}
	for rep.comp.spec.Workers > 0 && len(rep.waiting) > 0 && rep.inService.Len() < rep.comp.spec.Workers {
		w := rep.waiting[0]
		rep.waiting = rep.waiting[1:]
		w.finishV = rep.v + w.work
		rep.inService.Push(w)
	}
	e.retime(rep)
	for _, r := range done {
		e.proceed(r)
	}
}

// proceed makes a request's next downstream call, or answers it.
func (e *Emulator) proceed(r *request) {
	if r.failed || r.callIdx >= len(r.comp.calls) || r.rep.state == gone {
		r.failed = r.failed || r.rep.state == gone
		e.answer(r, r.rep.node)
		return
	}
	c := e.newRequest()
	c.root, c.parent, c.comp, c.from = r.root, r, r.comp.calls[r.callIdx], r.rep.node
	c.key = workload.ChildKey(r.key, r.callIdx)
	e.send(c, &r.rep.proxy)
}

// answer sends a request's response from node back to its caller.
func (e *Emulator) answer(r *request, from *node) {
	if rep := r.rep; rep != nil {
		rep.outstanding--
		rep.comp.countInFlight(e.now, -1)
		rep.answered++
		if r.failed {
			rep.errors++
		}
		rep.window = append(rep.window, (e.now-r.arrived)*1000)
		e.leaveIfIdle(rep)
	}
	d := e.hop(from, r.from, e.draws.Of(r.key, workload.DrawHopBack))
	r.root.network += d
	e.q.push(event{at: e.now + d, kind: evResponse, req: r})
}

// response delivers an answer to the caller's sidecar, which counts the
// request as done and feeds its outlier detector.
func (e *Emulator) response(r *request) {
	if u := r.via; u != nil {
		u.answered(r.rep)
		switch e.run.LBPolicy {
		case "PEAK_EWMA":
			u.observeRTT(r.rep, r.sentAt, e.now)
		case "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN":
			e.reportLoad(u, r.rep)
		}
		if u.outlier != nil {
			u.outlier.observe(r.rep, r.failed, e.now, len(r.comp.ready))
		}
	}
	if r.parent == nil {
		e.res.finished(r.root, e.now, r.failed)
		e.release(r)
		return
	}
	p := r.parent
	p.failed = p.failed || r.failed
	p.callIdx++
	e.release(r)
	e.proceed(p)
}

// advanceNode brings every pod on a node up to now.
func (e *Emulator) advanceNode(n *node) {
	for _, rep := range n.replicas {
		if dt := e.now - rep.last; dt > 0 {
			rep.v += rep.rate * dt
			rep.cpuSeconds += rep.cores * dt
			rep.waitingSeconds += rep.cpuWaiting * dt
			if rep.throttled {
				rep.throttledPeriods += dt / traffic.CFSPeriod.Seconds()
			}
			rep.last = e.now
		}
	}
}

// retime recomputes the rates on rep's node after rep's in-service set
// changed (the node was advanced first) and reschedules completions.
func (e *Emulator) retime(rep *replica) {
	n := rep.node
	level := n.fairShare()
	for _, x := range n.replicas {
		k, want := float64(x.inService.Len()), wanted(x)
		factor := 1.0
		if want > level {
			factor = level / want
		}
		rate, cores := 0.0, 0.0
		if k > 0 {
			rate = n.speed * math.Min(1, x.comp.spec.CPULimit/k) * factor
			cores = want * factor
		}
		waiting, throttled := cpuWait(k, x.comp.spec.CPULimit, factor)
		if x != rep && rate == x.rate && cores == x.cores && waiting == x.cpuWaiting {
			continue
		}
		x.rate, x.cores, x.cpuWaiting, x.throttled = rate, cores, waiting, throttled
		x.version++
		if k > 0 {
			at := e.now + math.Max(0, (*x.inService.Min()).finishV-x.v)/rate
			e.q.push(event{at: at, kind: evCompletion, rep: x, version: x.version})
		}
	}
}

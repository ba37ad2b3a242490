package emulator

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/artt-dev/artt/scaler/metric"
)

// scrapeModel is how Prometheus and artt-scaler see the pods of the
// components KEDA scales on artt-scaler:
//   - each pod's metrics are one target, scraped every interval at its
//     address's offset (ScrapePhases.Slots);
//   - a pod's arrival and CPU counters exist from its start, at zero; its
//     completed requests (istio_requests_total, a labelled counter) from
//     its first completion;
//   - a pod that is gone answers no scrape, which ends its series;
//   - a poll's range ends at the poll truncated to the trigger's step on
//     the wall clock (scaler/prometheus.go), and each point's irate reads
//     the last two samples within rateWindow at or before it.
type scrapeModel struct {
	e        *Emulator
	interval float64
	slots    map[*component]*addresses
	pods     map[*replica]*podScrapes
	byComp   map[*component][]*podScrapes // every pod it had, for its past
	points   map[pointKey]pointSums       // sums at points already read
	// lookback is how far back any poll reads, in seconds.
	lookback float64
	// extra draws the offsets of addresses beyond the phases' own.
	extra *rand.Rand
}

// addresses are a component's pod addresses: each one's offset, and the
// free ones in the order they are taken.
type addresses struct {
	offsets []float64
	free    []int
}

// podScrapes are one pod's samples, at its address's offset.
type podScrapes struct {
	slot     int
	at       []float64
	arrivals []float64
	answered []float64 // NaN before its first completion: no series yet
	cpu      []float64
	endedAt  float64 // the first scrape it did not answer (+Inf while it runs)
}

// pointKey names a point of a range: the index-th step of the wall clock.
type pointKey struct {
	comp   *component
	step   float64
	index  int64
	rate   string
	window float64
}

// pointSums are the component's rates at one point of a range: summed
// over its pods, NaN where no pod has a sample.
type pointSums struct{ demand, arrivals, cpu float64 }

func newScrapeModel(e *Emulator, scraped []*component, lookback float64) *scrapeModel {
	s := &scrapeModel{e: e, interval: e.sc.Control.SampleInterval.Seconds(),
		slots: map[*component]*addresses{}, pods: map[*replica]*podScrapes{}, byComp: map[*component][]*podScrapes{},
		points: map[pointKey]pointSums{}, lookback: lookback, extra: rand.New(rand.NewPCG(e.sc.Seed, scrapeStream+1))}
	for _, c := range scraped {
		a := &addresses{offsets: slices.Clone(s.e.phases.Slots[c.spec.Name])}
		for i := range a.offsets {
			a.free = append(a.free, i)
		}
		s.slots[c] = a
	}
	return s
}

// nextScrape is the first scrape of an address at offset at or after t.
func (s *scrapeModel) nextScrape(offset, t float64) float64 {
	first := offset - math.Mod(s.e.phases.Wall, s.interval) // a scrape of it, on the lab's clock
	return first + math.Ceil((t-first)/s.interval)*s.interval
}

// created gives a new pod of a scraped component its address and first
// scrape; an initial pod's counters stood at zero for the idle time.
func (s *scrapeModel) created(p *replica, initial bool) {
	a, ok := s.slots[p.comp]
	if !ok {
		return
	}
	if len(a.free) == 0 { // more pods than the phases name addresses for
		a.offsets = append(a.offsets, s.extra.Float64()*s.interval)
		a.free = append(a.free, len(a.offsets)-1)
	}
	ps := &podScrapes{slot: a.free[0], endedAt: math.Inf(1)}
	a.free = a.free[1:]
	s.pods[p] = ps
	s.byComp[p.comp] = append(s.byComp[p.comp], ps)
	next := s.nextScrape(a.offsets[ps.slot], p.born)
	if initial {
		before := math.Floor(min(s.e.podsIdle, s.lookback) / s.interval)
		for k := before; k >= 1; k-- {
			if at := next - k*s.interval; at >= p.born-s.e.podsIdle {
				ps.record(at, 0, math.NaN(), 0)
			}
		}
	}
	s.e.q.push(event{at: next, kind: evScrape, rep: p})
}

// scrape is Prometheus scraping pod p's target now.
func (s *scrapeModel) scrape(p *replica) {
	ps := s.pods[p]
	if p.state == gone {
		ps.endedAt = s.e.now
		s.slots[p.comp].free = append(s.slots[p.comp].free, ps.slot)
		delete(s.pods, p)
		return
	}
	s.e.advanceNode(p.node)
	answered := math.NaN()
	if p.answered > 0 {
		answered = float64(p.answered)
	}
	ps.record(s.e.now, float64(p.arrivals), answered, p.cpuSeconds)
	s.e.q.push(event{at: s.e.now + s.interval, kind: evScrape, rep: p})
	s.e.res.sampledArrivals(p.comp, s.latestArrivals(p.comp))
}

// latestArrivals is the component's arrivals per second as its pods'
// latest scrapes show them: each pod's rate between its last two samples,
// summed over the pods that answered within a scrape interval.
func (s *scrapeModel) latestArrivals(c *component) float64 {
	var sum float64
	for _, ps := range s.byComp[c] {
		j := len(ps.at) - 1
		if j < 1 || ps.endedAt <= s.e.now || s.e.now-ps.at[j] >= s.interval {
			continue
		}
		sum += (ps.arrivals[j] - ps.arrivals[j-1]) / (ps.at[j] - ps.at[j-1])
	}
	return sum
}

// scrapes says whether Prometheus' view of c comes from its pods' own
// scrapes.
func (s *scrapeModel) scrapes(c *component) bool {
	if s == nil {
		return false
	}
	_, ok := s.slots[c]
	return ok
}

func (ps *podScrapes) record(at, arrivals, answered, cpu float64) {
	ps.at = append(ps.at, at)
	ps.arrivals = append(ps.arrivals, arrivals)
	ps.answered = append(ps.answered, answered)
	ps.cpu = append(ps.cpu, cpu)
}

// measurements are what a poll now reads for c: spec.Points() points,
// one per spec.Step, the last at now truncated to the step on the wall
// clock.
func (s *scrapeModel) measurements(c *component, spec metric.Settings) metric.Measurements {
	n, step := spec.Points(), spec.Step.Seconds()
	last := int64(math.Floor((s.e.phases.Wall + s.e.now) / step))
	m := metric.Measurements{Demand: make([]float64, n), Arrivals: make([]float64, n), CPU: make([]float64, n)}
	for i := range n {
		key := pointKey{comp: c, step: step, index: last - int64(n-1-i), rate: spec.RateFunction, window: spec.RateWindow.Seconds()}
		v := s.at(key)
		m.Demand[i], m.Arrivals[i], m.CPU[i] = v.demand, v.arrivals, v.cpu
	}
	return m
}

// at is the component's rates at a point, read once it is past: a scrape
// at the point's instant may still be to come.
func (s *scrapeModel) at(key pointKey) pointSums {
	if v, ok := s.points[key]; ok {
		return v
	}
	t := float64(key.index)*key.step - s.e.phases.Wall
	sum := pointSums{demand: math.NaN(), arrivals: math.NaN(), cpu: math.NaN()}
	for _, ps := range s.byComp[key.comp] {
		i, j, ok := ps.pair(t, key.window, key.rate == "rate")
		if !ok {
			continue
		}
		span := ps.at[j] - ps.at[i]
		sum.arrivals = nanSum(sum.arrivals, (ps.arrivals[j]-ps.arrivals[i])/span)
		sum.cpu = nanSum(sum.cpu, (ps.cpu[j]-ps.cpu[i])/span)
		if k, ok := ps.firstAnswered(i, j); ok { // the series may begin inside the window
			sum.demand = nanSum(sum.demand, (ps.answered[j]-ps.answered[k])/(ps.at[j]-ps.at[k]))
		}
	}
	if t < s.e.now {
		s.points[key] = sum
	}
	return sum
}

// pair are the samples a rate at t over window reads: irate's last two,
// or rate's first and last, within (t − window, t]; none once the pod's
// series ended.
func (ps *podScrapes) pair(t, window float64, whole bool) (i, j int, ok bool) {
	if t >= ps.endedAt {
		return 0, 0, false
	}
	j = sort.SearchFloat64s(ps.at, math.Nextafter(t, math.Inf(1))) - 1 // the last sample at or before t
	if j < 1 {
		return 0, 0, false
	}
	i = j - 1
	if whole {
		i = sort.SearchFloat64s(ps.at, math.Nextafter(t-window, math.Inf(1)))
	}
	return i, j, i < j && ps.at[i] > t-window
}

// firstAnswered is the first sample from i to j where the completed
// requests' series exists, if one before j does (and so j's too).
func (ps *podScrapes) firstAnswered(i, j int) (int, bool) {
	if math.IsNaN(ps.answered[j]) {
		return 0, false
	}
	for k := i; k < j; k++ {
		if !math.IsNaN(ps.answered[k]) {
			return k, true
		}
	}
	return 0, false
}

// nanSum adds x to a sum that is NaN while empty.
func nanSum(sum, x float64) float64 {
	if math.IsNaN(sum) {
		return x
	}
	return sum + x
}

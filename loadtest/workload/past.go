package workload

import "math"

// Past is a workload's rate before its run starts, one value per Step
// seconds, the newest ending at the start: what a Prometheus backfilled
// from earlier days holds (promtool tsdb create-blocks-from). Values hold
// one cycle, repeated Cycles times back from the start (a trace's earlier
// rows are one cycle; a recurring workload's first period, several).
// Empty where the workload has no past.
type Past struct {
	Values []float64
	Step   float64
	Cycles int
}

// Seconds is how far back the past reaches.
func (p Past) Seconds() float64 { return float64(len(p.Values)*p.Cycles) * p.Step }

// Mean is the mean rate over [a, b], a < b ≤ 0 seconds from the start; ok
// is false where the past does not reach back to a.
func (p Past) Mean(a, b float64) (mean float64, ok bool) {
	if !(a < b) || b > 0 || a < -p.Seconds() {
		return math.NaN(), false
	}
	rows := len(p.Values) * p.Cycles
	total := 0.0
	for t := a; t < b; {
		i := min(int(math.Floor((t+p.Seconds())/p.Step)), rows-1)
		end := math.Min(b, float64(i+1)*p.Step-p.Seconds())
		if end <= t { // rounding at a row's edge
			end = math.Min(b, t+p.Step)
		}
		total += p.Values[i%len(p.Values)] * (end - t)
		t = end
	}
	return total / (b - a), true
}

// Repeated is the rate's first period, as the mean of each of its seconds,
// repeated back from the start for the given number of periods.
func (r Rate) Repeated(period float64, periods int) Past {
	n := int(math.Ceil(period))
	p := Past{Values: make([]float64, n), Step: period / float64(n), Cycles: periods}
	before := 0.0 // the requests sent in [0, t)
	for i := range p.Values {
		end := float64(i+1) * p.Step
		sent := r.Mean(end) * end
		p.Values[i] = (sent - before) / p.Step
		before = sent
	}
	return p
}

package workload

import "math"

// Past is a workload's rate before its run starts, one value per Step
// seconds, the newest ending at the start: what a Prometheus backfilled
// from a trace's earlier rows holds (promtool tsdb create-blocks-from).
// Empty where the workload has no past.
type Past struct {
	Values []float64
	Step   float64
}

// Seconds is how far back the past reaches.
func (p Past) Seconds() float64 { return float64(len(p.Values)) * p.Step }

// Mean is the mean rate over [a, b], a < b ≤ 0 seconds from the start; ok
// is false where the past does not reach back to a.
func (p Past) Mean(a, b float64) (mean float64, ok bool) {
	if !(a < b) || b > 0 || a < -p.Seconds() {
		return math.NaN(), false
	}
	total := 0.0
	for t := a; t < b; {
		i := min(int(math.Floor((t+p.Seconds())/p.Step)), len(p.Values)-1)
		end := math.Min(b, float64(i+1)*p.Step-p.Seconds())
		if end <= t { // rounding at a row's edge
			end = math.Min(b, t+p.Step)
		}
		total += p.Values[i] * (end - t)
		t = end
	}
	return total / (b - a), true
}

package health

// pool gathers a group's readings, each weighted by the requests behind
// it, until they hold enough requests to be judged: a reading over n
// requests is off by about 1/√n of its value (a mean CPU per request) or
// 1.45/√n (the p95 of exponential response times), so a few quiet
// intervals are judged together rather than each alone.
type pool struct {
	// sum is Σ reading × requests; requests is Σ requests.
	sum, requests float64
}

// add pools one reading over n requests.
func (p *pool) add(reading, n float64) {
	p.sum += reading * n
	p.requests += n
}

// take returns the pooled mean and the requests behind it, and empties
// the pool, once it holds at least min requests; ok is false while it
// holds fewer.
func (p *pool) take(min float64) (mean, requests float64, ok bool) {
	if p.requests < min {
		return 0, 0, false
	}
	mean, requests = p.sum/p.requests, p.requests
	*p = pool{}
	return mean, requests, true
}

package health

// LoadFree is a latency measured at CPU utilisation u (a fraction of the
// limit) as it would read on an idle server: latency × (1 − u). A
// processor-sharing server stretches every request by 1/(1 − u) on
// average, whatever the work's spread, so what is left once that stretch
// is taken out is the server's own speed. The tracker judges only
// load-free latencies, its baseline included: a p95 taken raw doubles
// from load alone at about a third of the limit when requests need equal
// work (the tail grows faster than the mean: 3× at half the limit),
// while the load-free p95 stays under 1.75× its idle value up to 80%.
// An unknown or out-of-range u leaves the latency as it is.
func LoadFree(latencyMs, u float64) float64 {
	if !(u > 0) || u >= 1 {
		return latencyMs
	}
	return latencyMs * (1 - u)
}

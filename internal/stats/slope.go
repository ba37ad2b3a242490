package stats

// Slope is the least-squares slope of ys over xs (NaN with fewer than two
// distinct xs): how fast a sampled quantity grows, as the soaks report
// their heaps.
func Slope(xs, ys []float64) float64 {
	mx, my := Mean(xs), Mean(ys)
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	return sxy / sxx
}

// Mean is the arithmetic mean (NaN for none).
func Mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

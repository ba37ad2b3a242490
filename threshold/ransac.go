package threshold

import (
	"errors"
	"math"
	"math/rand/v2"
)

// ErrInsufficientData reports a window with fewer finite samples than a fit
// needs.
var ErrInsufficientData = errors.New("not enough finite samples to fit a trend")

// LineFit is a robust straight-line fit of a window of samples taken at equal
// intervals; x is the sample's index in the window.
type LineFit struct {
	// Slope is the fitted change per sample: the trend.
	Slope float64
	// Intercept is the fitted value at index 0.
	Intercept float64
	// Inliers is the size of the consensus set the final line was fitted to.
	Inliers int
	// Samples is the number of finite samples in the window.
	Samples int
	// Cutoff is the absolute residual under which a sample counted as an inlier.
	Cutoff float64
	// MeanAbsResidual is the mean |y - line| over the inliers: the volatility.
	MeanAbsResidual float64
	// Mean is the mean of the finite samples.
	Mean float64
	// Span is the index distance between the first and last finite sample.
	Span float64
	// RSquared is the share of the inliers' variance the line explains, in
	// [0, 1]; 0 when the inliers have no variance.
	RSquared float64
}

// RANSACParams tunes FitLineRANSAC.
type RANSACParams struct {
	// MADMultiplier sets the inlier cutoff: a sample is an inlier when its
	// residual is at most MADMultiplier · 1.4826 · the median absolute
	// residual about a first-pass line.
	MADMultiplier float64
	// MaxIterations bounds the number of candidate lines tried.
	MaxIterations int
	// Confidence is the probability of having drawn at least one
	// all-inlier pair at which the search stops early.
	Confidence float64
	// MinSamples is the fewest finite samples a window may have.
	MinSamples int
	// Seed makes the random pair choice repeatable.
	Seed uint64
}

// FitLineRANSAC fits a line to y (x = 0, 1, …) with RANSAC (M. A. Fischler and
// R. C. Bolles, "Random Sample Consensus", CACM 24(6), 1981): it draws pairs
// of samples, keeps the line through the pair that most samples agree with,
// and refits that consensus set by ordinary least squares.
//
// The inlier cutoff is MADMultiplier · 1.4826 · the median absolute
// residual: a robust scale of the noise around the trend, not of the demand.
// The demand's own MAD grows with the slope (the package doc gives by how
// much) and would let bursts count as inliers on exactly the ramps where
// robustness matters, so it only seeds a first pass whose least-squares line
// supplies the residuals; each further pass searches again under the
// residual cutoff of the last, while that cutoff shrinks by more than 5% (at
// most three more passes).
//
// When every pair can be tried within MaxIterations, every pair is tried,
// in order, and the result does not depend on the seed. NaN and infinite
// samples are skipped.
func FitLineRANSAC(y []float64, p RANSACParams) (LineFit, error) {
	xs := make([]float64, 0, len(y))
	ys := make([]float64, 0, len(y))
	for i, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			xs = append(xs, float64(i))
			ys = append(ys, v)
		}
	}
	n := len(ys)
	if n < max(p.MinSamples, 2) {
		return LineFit{Samples: n}, ErrInsufficientData
	}

	scratch := make([]float64, n)
	line := func(i, j int) (slope, intercept float64) {
		slope = (ys[j] - ys[i]) / (xs[j] - xs[i])
		return slope, ys[i] - slope*xs[i]
	}
	// Pass 1: a provisional consensus under a cutoff from the demand's own
	// spread, k · 1.4826 · MAD(y), loose on a ramp but enough to find the
	// trend; its least-squares line gives residuals.
	// A window where more than half the samples are equal, or lie on one
	// line, has a scale of 0; keep a tolerance for rounding so those samples
	// still agree with their line.
	floor := 1e-9 * (1 + math.Abs(median(ys, scratch)))
	cutoff := max(p.MADMultiplier*madToSigma*medianAbsoluteDeviation(ys, scratch), floor)
	fit := refit(xs, ys, search(xs, ys, p, line, cutoff))
	// Further passes: k · 1.4826 · median |residual|, the scale of the noise
	// around the last line, and the consensus under it, while that scale
	// keeps shrinking (bursts in the first consensus tilt its line; once
	// they are out, the scale settles, in two or three passes).
	for range maxResidualPasses {
		for k, x := range xs {
			scratch[k] = math.Abs(ys[k] - (fit.Intercept + fit.Slope*x))
		}
		next := max(p.MADMultiplier*madToSigma*median(scratch, scratch), floor)
		if next >= 0.95*cutoff {
			break
		}
		cutoff = next
		fit = refit(xs, ys, search(xs, ys, p, line, cutoff))
	}
	var sum float64
	for _, v := range ys {
		sum += v
	}
	fit.Mean = sum / float64(n)
	fit.Span = xs[n-1] - xs[0]
	return fit, nil
}

// maxResidualPasses bounds the passes after the first.
const maxResidualPasses = 3

// search returns the candidate line through a pair of samples that most
// samples lie within cutoff of (the smaller total residual on a tie).
func search(xs, ys []float64, p RANSACParams, line func(i, j int) (float64, float64), cutoff float64) candidate {
	n := len(xs)
	best := candidate{inliers: -1, cutoff: cutoff}
	forEachPair(n, p, func() int {
		return min(p.MaxIterations, iterationsFor(float64(best.inliers)/float64(n), p.Confidence))
	}, func(i, j int) {
		slope, intercept := line(i, j)
		c := scoreLine(xs, ys, slope, intercept, cutoff)
		if c.inliers > best.inliers || (c.inliers == best.inliers && c.absResidual < best.absResidual) {
			best = c
		}
	})
	return best
}

// forEachPair calls try for every pair of samples, in order, when they fit
// within MaxIterations, or else for MaxIterations random pairs drawn with the
// seed; needed, when set, may stop the draws early (RANSAC's stopping rule).
func forEachPair(n int, p RANSACParams, needed func() int, try func(i, j int)) {
	if n*(n-1)/2 <= p.MaxIterations {
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				try(i, j)
			}
		}
		return
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0x9e3779b97f4a7c15))
	limit := p.MaxIterations
	for it := 0; it < limit; it++ {
		i := rng.IntN(n)
		j := rng.IntN(n - 1)
		if j >= i {
			j++
		}
		try(i, j)
		if needed != nil {
			limit = needed()
		}
	}
}

// candidate is one line tried by the RANSAC search and its support.
type candidate struct {
	slope, intercept float64
	inliers          int
	absResidual      float64
	cutoff           float64
}

func scoreLine(xs, ys []float64, slope, intercept, cutoff float64) candidate {
	c := candidate{slope: slope, intercept: intercept, cutoff: cutoff}
	for k, x := range xs {
		r := math.Abs(ys[k] - (intercept + slope*x))
		if r <= cutoff {
			c.inliers++
			c.absResidual += r
		}
	}
	return c
}

// iterationsFor is the classic RANSAC stopping rule: the number of draws of
// a pair after which, with inlier ratio w, at least one all-inlier pair was
// drawn with probability confidence.
func iterationsFor(w, confidence float64) int {
	pGood := w * w
	if pGood >= 1 {
		return 1
	}
	if pGood <= 0 {
		return math.MaxInt32
	}
	k := math.Log(1-confidence) / math.Log(1-pGood)
	if k > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(math.Ceil(k))
}

// refit fits ordinary least squares to the consensus set of the chosen line
// (the samples within cutoff of it) and reports the refitted line with its
// residual statistics over that same set.
func refit(xs, ys []float64, c candidate) LineFit {
	slope, intercept, cutoff := c.slope, c.intercept, c.cutoff
	var sx, sy, sxx, sxy float64
	var m int
	inlier := make([]bool, len(xs))
	for k, x := range xs {
		if math.Abs(ys[k]-(intercept+slope*x)) <= cutoff {
			inlier[k] = true
			m++
			sx += x
			sy += ys[k]
			sxx += x * x
			sxy += x * ys[k]
		}
	}
	fm := float64(m)
	if den := fm*sxx - sx*sx; den > 0 {
		slope = (fm*sxy - sx*sy) / den
		intercept = (sy - slope*sx) / fm
	}
	meanY := sy / fm
	var absRes, ssRes, ssTot float64
	for k, x := range xs {
		if !inlier[k] {
			continue
		}
		r := ys[k] - (intercept + slope*x)
		absRes += math.Abs(r)
		ssRes += r * r
		d := ys[k] - meanY
		ssTot += d * d
	}
	rSquared := 0.0
	if ssTot > 0 {
		rSquared = math.Min(math.Max(1-ssRes/ssTot, 0), 1)
	}
	return LineFit{
		Slope:           slope,
		Intercept:       intercept,
		Inliers:         m,
		Samples:         len(xs),
		Cutoff:          cutoff,
		MeanAbsResidual: absRes / fm,
		RSquared:        rSquared,
	}
}

package queueing

import (
	"math"
	"testing"
)

// The textbook sum: C(c, a) = (a^c/c! · c/(c−a)) / (Σ_{k<c} a^k/k! + a^c/c! · c/(c−a)).
func erlangCBySum(c int, a float64) float64 {
	term, sum := 1.0, 0.0
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	last := term * float64(c) / (float64(c) - a)
	return last / (sum + last)
}

func TestErlangCMatchesTheSum(t *testing.T) {
	for _, c := range []int{1, 2, 3, 5, 10, 40} {
		for _, rho := range []float64{0.05, 0.3, 0.6, 0.85, 0.99} {
			a := rho * float64(c)
			got, want := ErlangC(c, a), erlangCBySum(c, a)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("ErlangC(%d, %g) = %.15f, the sum gives %.15f", c, a, got, want)
			}
		}
	}
}

func TestErlangCKnownValues(t *testing.T) {
	// One server: the probability of waiting is the utilisation.
	if got := ErlangC(1, 0.7); math.Abs(got-0.7) > 1e-12 {
		t.Errorf("ErlangC(1, 0.7) = %g, want 0.7", got)
	}
	// Two servers at one Erlang: 1/3.
	if got := ErlangC(2, 1); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("ErlangC(2, 1) = %g, want 1/3", got)
	}
	if got := ErlangC(3, 3); got != 1 {
		t.Errorf("saturated ErlangC(3, 3) = %g, want 1", got)
	}
	if got := ErlangC(3, 0); got != 0 {
		t.Errorf("idle ErlangC(3, 0) = %g, want 0", got)
	}
	// Far past where a^c/c! overflows a float64.
	if got := ErlangC(400, 380); !(got > 0 && got < 1) {
		t.Errorf("ErlangC(400, 380) = %g, want a probability", got)
	}
}

func TestMeanWait(t *testing.T) {
	// M/M/1: Wq = ρ / (μ − λ).
	if got, want := MeanWait(1, 60, 80), 0.75/20; math.Abs(got-want) > 1e-12 {
		t.Errorf("MeanWait(1, 60, 80) = %g, want %g", got, want)
	}
	if got := MeanWait(2, 200, 100); !math.IsInf(got, 1) {
		t.Errorf("saturated MeanWait = %g, want +Inf", got)
	}
	if got := MeanWait(2, 0, 100); got != 0 {
		t.Errorf("idle MeanWait = %g, want 0", got)
	}
	// Pooling: one queue of three servers waits less than three queues of
	// one at the same utilisation.
	if pooled, split := MeanWait(3, 180, 80), MeanWait(1, 60, 80); !(pooled < split/2) {
		t.Errorf("pooled wait %g is not well under the split wait %g", pooled, split)
	}
}

func TestTieProbability(t *testing.T) {
	poisson := func(q float64, k int) float64 {
		p := math.Exp(-q)
		for i := 1; i <= k; i++ {
			p *= q / float64(i)
		}
		return p
	}
	for _, q := range []float64{0.01, 0.3, 1, 4, 20} {
		want := 0.0
		for k := 0; k < 200; k++ {
			want += poisson(q, k) * poisson(q, k)
		}
		if got := TieProbability(q); math.Abs(got-want) > 1e-12 {
			t.Errorf("TieProbability(%g) = %.15f, the direct sum gives %.15f", q, got, want)
		}
	}
	if got := TieProbability(0); got != 1 {
		t.Errorf("TieProbability(0) = %g, want 1", got)
	}
	// Large q: e^{-2q} I₀(2q) ≈ 1/√(4πq).
	if got, want := TieProbability(5000), 1/math.Sqrt(4*math.Pi*5000); math.Abs(got-want) > 1e-3*want {
		t.Errorf("TieProbability(5000) = %g, want about %g", got, want)
	}
	// Both ways agree where they meet and beyond it, to the sum's own
	// rounding: Lgamma near k = q carries a relative error of about
	// 1e-16·q·ln q, which the exponential passes on.
	for _, q := range []float64{tieSeriesFrom, 800, 3000} {
		if sum, series := tieBySum(q), tieAsymptotic(q); math.Abs(sum-series) > 1e-10*sum {
			t.Errorf("q = %g: the sum gives %.17g, the asymptotic series %.17g", q, sum, series)
		}
	}
	// A huge mean (a fleet's requests in flight over one caller) answers at
	// once and stays on the asymptote, rather than summing q terms.
	for _, q := range []float64{2.6e15, 1e300} {
		got, want := TieProbability(q), 1/math.Sqrt(4*math.Pi*q)
		if !(math.Abs(got-want) <= 1e-9*want) {
			t.Errorf("TieProbability(%g) = %g, want %g", q, got, want)
		}
	}
}

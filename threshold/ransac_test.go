package threshold

import (
	"errors"
	"math"
	"testing"
)

func defaultRANSAC() RANSACParams { return DefaultConfig().RANSAC }

func TestFitLineRANSACHandWorked(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name      string
		y         []float64
		slope     float64
		intercept float64
		inliers   int
		samples   int
		meanAbs   float64
	}{
		{
			// MAD = 2, cutoff = 2.5·1.4826·2 ≈ 7.41; the line y = x through the
			// other four samples leaves 30 at residual 27: rejected.
			name: "one burst is rejected", y: []float64{0, 1, 2, 30, 4},
			slope: 1, intercept: 0, inliers: 4, samples: 5, meanAbs: 0,
		},
		{
			name: "exact line with an outlier in a long window",
			y: func() []float64 {
				y := make([]float64, 240)
				for i := range y {
					y[i] = 2*float64(i) + 1
				}
				y[120] = 5000
				return y
			}(),
			slope: 2, intercept: 1, inliers: 239, samples: 240, meanAbs: 0,
		},
		{
			// Samples (0,0) (1,2) (3,2) (4,4): least squares b = 0.8, a = 0.4;
			// residuals −0.4, 0.8, −0.8, 0.4: mean |r| = 0.6.
			name: "missing samples are skipped, residuals averaged", y: []float64{0, 2, nan, 2, 4},
			slope: 0.8, intercept: 0.4, inliers: 4, samples: 4, meanAbs: 0.6,
		},
		{
			name: "infinite samples are skipped too", y: []float64{math.Inf(1), 3, 3, 3, 3, 3},
			slope: 0, intercept: 3, inliers: 5, samples: 5, meanAbs: 0,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params := defaultRANSAC()
			params.MinSamples = 3
			fit, err := FitLineRANSAC(tc.y, params)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(fit.Slope-tc.slope) > 1e-9 || math.Abs(fit.Intercept-tc.intercept) > 1e-9 {
				t.Errorf("line = %v + %v·x, want %v + %v·x", fit.Intercept, fit.Slope, tc.intercept, tc.slope)
			}
			if fit.Inliers != tc.inliers || fit.Samples != tc.samples {
				t.Errorf("inliers/samples = %d/%d, want %d/%d", fit.Inliers, fit.Samples, tc.inliers, tc.samples)
			}
			if math.Abs(fit.MeanAbsResidual-tc.meanAbs) > 1e-9 {
				t.Errorf("mean |residual| = %v, want %v", fit.MeanAbsResidual, tc.meanAbs)
			}
		})
	}
}

func TestFitLineRANSACRejectsShortWindows(t *testing.T) {
	nan := math.NaN()
	for _, y := range [][]float64{nil, {1, 2}, {1, nan, nan, nan, 2, 3}} {
		if _, err := FitLineRANSAC(y, defaultRANSAC()); !errors.Is(err, ErrInsufficientData) {
			t.Errorf("FitLineRANSAC(%v) error = %v, want ErrInsufficientData", y, err)
		}
	}
}

func TestFitLineRANSACRSquared(t *testing.T) {
	clean := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	fit, err := FitLineRANSAC(clean, defaultRANSAC())
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fit.RSquared-1) > 1e-12 {
		t.Errorf("R² of a clean line = %v, want 1", fit.RSquared)
	}
	// Alternating ±1 around a constant: the best line is flat, R² = 0.
	alt := []float64{1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1}
	fit, err = FitLineRANSAC(alt, defaultRANSAC())
	if err != nil {
		t.Fatal(err)
	}
	if fit.RSquared > 0.05 {
		t.Errorf("R² of alternating noise = %v, want near 0", fit.RSquared)
	}
}

func TestIterationsFor(t *testing.T) {
	cases := []struct {
		w, conf float64
		want    int
	}{
		{1, 0.99, 1},
		// log(0.01)/log(1−0.25) = 16.008… → 17
		{0.5, 0.99, 17},
		// log(0.01)/log(1−0.81) = 2.77… → 3
		{0.9, 0.99, 3},
	}
	for _, tc := range cases {
		if got := iterationsFor(tc.w, tc.conf); got != tc.want {
			t.Errorf("iterationsFor(%v, %v) = %d, want %d", tc.w, tc.conf, got, tc.want)
		}
	}
}

// The inlier cutoff must measure the noise around the line, not the spread
// of the demand itself: on a steep ramp the demand's MAD grows with the
// slope, which would count bursts as inliers exactly when robustness
// matters.
func TestRANSACCutoffComesFromResidualsNotTheRamp(t *testing.T) {
	y := make([]float64, 40)
	for i := range y {
		y[i] = 100 + 10*float64(i) + []float64{-1, 0.5, 1, -0.5}[i%4]
	}
	for _, i := range []int{12, 25, 33} {
		y[i] += 80 // bursts well above the noise, well below the ramp's spread
	}
	fit, err := FitLineRANSAC(y, DefaultConfig().RANSAC)
	if err != nil {
		t.Fatal(err)
	}
	if fit.Inliers != 37 {
		t.Errorf("%d inliers (cutoff %.2f); want 37, the three bursts out", fit.Inliers, fit.Cutoff)
	}
	if fit.Cutoff > 10 {
		t.Errorf("cutoff %.2f grows with the slope; the noise is ±1", fit.Cutoff)
	}
	if math.Abs(fit.Slope-10) > 0.05 {
		t.Errorf("slope %.3f, want 10", fit.Slope)
	}
}

package threshold

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/artt-dev/artt/internal/fielderr"
)

// Mode selects how the threshold is computed.
type Mode string

const (
	// ModeARTT is ARTT-HPA: dynamically weighted trend and cost-scaled volatility.
	ModeARTT Mode = "artt"
	// ModeLARE is the LARE-HPA baseline: volatility only, without the
	// per-request CPU cost.
	ModeLARE Mode = "lare"
	// ModeStatic is a fixed threshold, as a plain CPU target would be.
	ModeStatic Mode = "static"
)

// Normalization selects how ModeARTT turns trend and volatility into
// headroom.
type Normalization string

const (
	// NormalizationRelative measures both against the window's mean
	// demand: θ = Max ÷ (1 + z·σ_rel·c_rel + drift_rel).
	NormalizationRelative Normalization = "relative"
	// NormalizationWelford is the paper's: each signal against its own
	// history's Welford bounds, weighted by R².
	NormalizationWelford Normalization = "welford"
	// NormalizationLead (the default) keeps the peaks expected within the
	// lead time, the noise's and the climb's, under Ceiling:
	// θ = min(Max, Ceiling ÷ (1 + z·σ_rel·c_rel + climb_rel)).
	NormalizationLead Normalization = "lead"
	// NormalizationPredictive keeps a forecast of the demand one lead time
	// ahead, plus the forecast's own error, under Ceiling:
	// θ = Ceiling × y ÷ (ŷ(+Lead) + e_q), within [Min, Max].
	NormalizationPredictive Normalization = "predictive"
	// NormalizationCalendar keeps a forecast from the same phase of
	// earlier periods of the demand (a Calendar), plus its own error,
	// under Ceiling: θ = Ceiling × y ÷ (ŷ + e_q) (Config.CalendarThreshold).
	// Its caller supplies the history; until that holds an earlier period
	// the threshold is NormalizationLead's.
	NormalizationCalendar Normalization = "calendar"
)

// Config holds every knob of the threshold. DefaultConfig gives the values
// the package documentation explains.
type Config struct {
	// Mode selects ARTT, LARE or static.
	Mode Mode
	// Normalization selects ModeARTT's normalisation (ModeLARE keeps the
	// published Welford bounds).
	Normalization Normalization
	// MinThreshold and MaxThreshold bound the adaptive threshold; they are in
	// whatever unit the threshold is compared with (the scaler uses percent
	// of the CPU request).
	MinThreshold, MaxThreshold float64
	// StaticThreshold is the threshold in ModeStatic.
	StaticThreshold float64
	// Quantile q sets the outlier interval mean ± z·sd with z = Φ⁻¹(q).
	Quantile float64
	// Deadband is the fraction of the window's mean demand below which the
	// volatility, and the trend's drift across the window, count as zero.
	Deadband float64
	// WarmUp is how many values each bound admits before the outlier interval
	// applies.
	WarmUp int
	// Lead is how far ahead, in samples, NormalizationLead keeps headroom
	// for a climb: the time new replicas take to serve (the HPA's sync
	// plus pod startup) over the sample step. 0 keeps none.
	Lead float64
	// Ceiling is the utilisation NormalizationLead keeps the expected peaks
	// under, in the thresholds' unit: 100, the CPU request, which the
	// scheduler guarantees each pod.
	Ceiling float64
	// RANSAC tunes the trend fit.
	RANSAC RANSACParams
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Mode:            ModeARTT,
		Normalization:   NormalizationLead,
		MinThreshold:    50,
		MaxThreshold:    80,
		StaticThreshold: 70,
		Quantile:        0.975,
		Deadband:        0.01,
		WarmUp:          5,
		Lead:            2,
		Ceiling:         100,
		RANSAC: RANSACParams{
			MADMultiplier: 2.5,
			MaxIterations: 100,
			Confidence:    0.99,
			MinSamples:    5,
			Seed:          1,
		},
	}
}

// FieldError names the Config field that is invalid, its value and why.
type FieldError = fielderr.Error

// Validate reports the first invalid field as a *FieldError.
func (c Config) Validate() error {
	finitePositive := func(field string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return &FieldError{Field: field, Value: v, Reason: "must be a finite number above 0"}
		}
		return nil
	}
	switch c.Mode {
	case ModeARTT, ModeLARE, ModeStatic:
	default:
		return &FieldError{Field: "Mode", Value: c.Mode, Reason: `must be one of "artt", "lare", "static"`}
	}
	switch c.Normalization {
	case NormalizationRelative, NormalizationWelford, NormalizationLead, NormalizationPredictive, NormalizationCalendar:
	default:
		return &FieldError{Field: "Normalization", Value: c.Normalization, Reason: `must be "lead", "predictive", "calendar", "relative" or "welford"`}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"MinThreshold", c.MinThreshold},
		{"MaxThreshold", c.MaxThreshold},
		{"StaticThreshold", c.StaticThreshold},
		{"RANSAC.MADMultiplier", c.RANSAC.MADMultiplier},
	} {
		if err := finitePositive(f.name, f.v); err != nil {
			return err
		}
	}
	if math.IsNaN(c.Lead) || math.IsInf(c.Lead, 0) || c.Lead < 0 || c.Lead > maxLead {
		return &FieldError{Field: "Lead", Value: c.Lead, Reason: fmt.Sprintf("must be in [0, %d] samples", maxLead)}
	}
	if math.IsNaN(c.Ceiling) || math.IsInf(c.Ceiling, 0) || c.Ceiling < c.MaxThreshold {
		return &FieldError{Field: "Ceiling", Value: c.Ceiling, Reason: fmt.Sprintf("must be a finite number at least MaxThreshold (%v)", c.MaxThreshold)}
	}
	if c.MinThreshold > c.MaxThreshold {
		return &FieldError{Field: "MinThreshold", Value: c.MinThreshold, Reason: fmt.Sprintf("must not exceed MaxThreshold (%v)", c.MaxThreshold)}
	}
	if !(c.Quantile > 0.5 && c.Quantile < 1) {
		return &FieldError{Field: "Quantile", Value: c.Quantile, Reason: "must be in (0.5, 1)"}
	}
	if math.IsNaN(c.Deadband) || c.Deadband < 0 || c.Deadband >= 1 {
		return &FieldError{Field: "Deadband", Value: c.Deadband, Reason: "must be in [0, 1)"}
	}
	if c.WarmUp < 2 {
		return &FieldError{Field: "WarmUp", Value: c.WarmUp, Reason: "must be at least 2"}
	}
	if c.RANSAC.MaxIterations < 1 || c.RANSAC.MaxIterations > 100000 {
		return &FieldError{Field: "RANSAC.MaxIterations", Value: c.RANSAC.MaxIterations, Reason: "must be in [1, 100000]"}
	}
	if !(c.RANSAC.Confidence > 0 && c.RANSAC.Confidence < 1) {
		return &FieldError{Field: "RANSAC.Confidence", Value: c.RANSAC.Confidence, Reason: "must be in (0, 1)"}
	}
	if c.RANSAC.MinSamples < 3 {
		return &FieldError{Field: "RANSAC.MinSamples", Value: c.RANSAC.MinSamples, Reason: "must be at least 3"}
	}
	return nil
}

// z is the half-width of the outlier interval in standard deviations.
func (c Config) z() float64 {
	return distuv.UnitNormal.Quantile(c.Quantile)
}

// maxLead bounds Lead: a day of 15 s samples.
const maxLead = 5760

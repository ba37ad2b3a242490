package metric

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"time"

	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/threshold"
)

// Settings are the trigger's settings that shape what is measured and how
// the threshold and the metric are computed: every key of the metadata but
// where to measure (Prometheus, its queries, the workload's name).
type Settings struct {
	// Window is the trend window in samples; History the number of earlier
	// windows replayed for the normalisation bounds; Step the sample spacing.
	Window, History int
	Step            time.Duration
	// RateFunction is how each sample's rate is taken: irate (the default:
	// between the last two scrapes within RateWindow) or rate (the average
	// over RateWindow).
	RateFunction string
	// RateWindow is how far back irate looks for two scrapes, or what rate
	// averages over; 0 when its key was refused.
	RateWindow time.Duration
	// OfferedLoad scales on the arriving requests' CPU (arrivals × the
	// measured CPU per request) rather than on the CPU used alone, which
	// stops growing at the pods' limit.
	OfferedLoad bool
	// LeadTime is how far ahead the threshold keeps headroom for a climb
	// (threshold.Config.Lead × Step).
	LeadTime time.Duration
	// ActivationRequestRate: the workload is active above this request rate.
	ActivationRequestRate float64
	// Form selects the metric form.
	Form Form
	// Calendar shapes the history normalization "calendar" reads.
	Calendar CalendarSettings
	// Threshold configures the core.
	Threshold threshold.Config
}

// Points is the number of samples each poll reads: the window and the
// history before it.
func (s Settings) Points() int { return s.Window + s.History - 1 }

// Limits that keep one ScaledObject's memory and query cost bounded.
const (
	maxWindow = 2400
	// MaxPoints is the most samples a poll reads: Prometheus refuses range
	// queries of more than 11,000 points.
	MaxPoints = 11000
)

// configFieldKeys maps threshold.Config fields to the metadata keys that set them.
var configFieldKeys = map[string]string{
	"Mode": "mode", "Normalization": "normalization", "MinThreshold": "minThreshold", "MaxThreshold": "maxThreshold",
	"StaticThreshold": "staticThreshold", "Quantile": "quantile", "Deadband": "deadband", "WarmUp": "warmUp",
	"RANSAC.MADMultiplier": "madMultiplier", "RANSAC.MaxIterations": "ransacIterations", "Lead": "leadTime",
}

// DefaultRateWindow is rateWindow's default, a PromQL duration.
const DefaultRateWindow = "1m"

// promDuration is a PromQL duration such as 30s, 1m or 1m30s.
var promDuration = regexp.MustCompile(`^([0-9]+(ms|s|m|h|d|w|y))+$`)

// KEDAKeys are the trigger metadata keys KEDA reads itself for an external
// or external-push trigger, and passes along with the rest: scalerAddress,
// enableTLS and unsafeSsl (KEDA v2.21's pkg/scalers/external_scaler.go),
// caCert, tlsClientCert and tlsClientKey (read from the trigger's
// authentication since, and from its metadata in older releases), and
// tlsCertFile (older releases' documentation). They are accepted, and
// their values never read.
var KEDAKeys = []string{"scalerAddress", "enableTLS", "unsafeSsl", "caCert", "tlsClientCert", "tlsClientKey", "tlsCertFile"}

// MeasurementKeys are the trigger metadata keys that say where to measure:
// artt-scaler's adapter reads them (package scaler), the lab has no use
// for them.
var MeasurementKeys = []string{"workload", "prometheusAddress", "queryTimeout",
	"cpuUsageQuery", "cpuRequestQuery", "requestRateQuery", "arrivalRateQuery", "podCPURequestQuery", "calendarQuery"}

// ParseSettings reads the settings from a trigger's metadata, as
// artt-scaler would: a key that is neither a setting, nor a measurement
// key, nor KEDA's is refused.
func ParseSettings(md map[string]string) (Settings, error) {
	r := NewReader(md)
	s := r.Settings()
	if err := r.Err("unknown key; see docs/scaler.md for the keys artt-scaler reads", append(slices.Clone(MeasurementKeys), KEDAKeys...)...); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// Settings reads every setting's key over its default, keeping the errors.
func (r *Reader) Settings() Settings {
	s := Settings{
		// A window shorter than the fit's minimum would never move the threshold.
		Window:                r.Int("window", 40, threshold.DefaultConfig().RANSAC.MinSamples, maxWindow),
		History:               r.Int("history", 240, 1, MaxPoints),
		Step:                  r.Duration("step", 15*time.Second, time.Second, time.Hour),
		ActivationRequestRate: r.Float("activationRequestRate", 0),
		Form:                  Form(r.String("metricForm", string(FormNormalized))),
		OfferedLoad:           r.Bool("offeredLoad", true),
		LeadTime:              r.Duration("leadTime", 30*time.Second, 0, 24*time.Hour),
		Calendar:              r.calendar(),
	}
	cfg := r.thresholdConfig()
	r.rate(&s)
	cfg.Lead = float64(s.LeadTime) / float64(s.Step)
	s.Threshold = cfg
	r.checkThreshold(cfg)
	r.checkSettings(s)
	r.checkCalendar(s)
	return s
}

// checkSettings checks the values read into s that no single key's reader
// can: the points a poll reads, the metric form and the activation rate.
func (r *Reader) checkSettings(s Settings) {
	if s.Points() > MaxPoints {
		r.Fail("history", fmt.Sprintf("window + history − 1 = %d exceeds the %d points Prometheus returns per range query", s.Points(), MaxPoints))
	}
	if !s.Form.valid() {
		r.Fail("metricForm", `must be "normalized", "utilization" or "pods"`)
	}
	if math.IsNaN(s.ActivationRequestRate) || math.IsInf(s.ActivationRequestRate, 0) || s.ActivationRequestRate < 0 {
		r.Fail("activationRequestRate", "must be a finite number ≥ 0")
	}
}

// thresholdConfig reads the threshold's keys over its defaults.
func (r *Reader) thresholdConfig() threshold.Config {
	cfg := threshold.DefaultConfig()
	cfg.Mode = threshold.Mode(r.String("mode", string(cfg.Mode)))
	cfg.Normalization = threshold.Normalization(r.String("normalization", string(cfg.Normalization)))
	cfg.MinThreshold = r.Float("minThreshold", cfg.MinThreshold)
	cfg.MaxThreshold = r.Float("maxThreshold", cfg.MaxThreshold)
	cfg.StaticThreshold = r.Float("staticThreshold", cfg.StaticThreshold)
	cfg.Quantile = r.Float("quantile", cfg.Quantile)
	cfg.Deadband = r.Float("deadband", cfg.Deadband)
	cfg.WarmUp = r.Int("warmUp", cfg.WarmUp, 2, MaxPoints)
	cfg.RANSAC.MADMultiplier = r.Float("madMultiplier", cfg.RANSAC.MADMultiplier)
	cfg.RANSAC.MaxIterations = r.Int("ransacIterations", cfg.RANSAC.MaxIterations, 1, 100000)
	cfg.RANSAC.Seed = uint64(r.Int("seed", int(cfg.RANSAC.Seed), 0, math.MaxInt32))
	return cfg
}

// checkThreshold reports the threshold's first invalid field under the
// metadata key that sets it.
func (r *Reader) checkThreshold(cfg threshold.Config) {
	err := cfg.Validate()
	if err == nil {
		return
	}
	var fe *threshold.FieldError
	if errors.As(err, &fe) {
		key := configFieldKeys[fe.Field]
		r.Fail(key, fe.Reason)
		return
	}
	r.Refuse(err)
}

// rate reads rateFunction and rateWindow into s.
func (r *Reader) rate(s *Settings) {
	s.RateFunction = r.String("rateFunction", "irate")
	if s.RateFunction != "irate" && s.RateFunction != "rate" {
		r.Fail("rateFunction", `must be "irate" or "rate"`)
	}
	window := r.String("rateWindow", DefaultRateWindow)
	d, err := model.ParseDuration(window)
	if !promDuration.MatchString(window) || err != nil || d <= 0 {
		r.Refuse(&MetadataError{"rateWindow", window, "must be a PromQL duration above 0 such as 1m or 30s"})
		return
	}
	s.RateWindow = time.Duration(d)
}

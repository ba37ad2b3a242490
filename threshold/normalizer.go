package threshold

// normalizer is how a Tracker turns one fitted window into a threshold:
// it returns r with its normalised signals, their weights and the
// threshold filled in (by value: a pointer through the interface would put
// every result on the heap). Each normalisation is one normalizer, in a
// file of its own; the Tracker keeps what every normalizer reads (the fit,
// the per-request cost against its history) and each normalizer keeps only
// its own state.
type normalizer interface {
	target(r Result, w fitted) Result
}

// fitted is one window as the normalizers read it.
type fitted struct {
	// samples is the window, oldest first (NaN where missing).
	samples []float64
	fit     LineFit
	// volatility and rising are the fit's mean absolute residual and
	// rising slope, each 0 within the deadband.
	volatility, rising float64
	// cost is the per-request cost the window is judged at; costRel that
	// cost against its mean over the history.
	cost, costRel float64
}

// normalizers holds every normalizer's state inside the Tracker, which
// points its normalizer at the one in use: a normalizer allocated on its
// own is one allocation more per poll (artt-scaler replays a fresh Tracker
// for each).
type normalizers struct {
	welford    welford
	relative   relative
	lead       lead
	predictive predictive
}

// pick sets up and returns the normalizer cfg selects (cfg valid, not
// ModeStatic).
func (w *normalizers) pick(cfg *Config) normalizer {
	switch {
	case cfg.Mode == ModeLARE:
		w.welford = newWelford(cfg, false)
		return &w.welford
	case cfg.Normalization == NormalizationWelford:
		w.welford = newWelford(cfg, true)
		return &w.welford
	case cfg.Normalization == NormalizationRelative:
		w.relative = relative{cfg: cfg, z: cfg.z()}
		return &w.relative
	case cfg.Normalization == NormalizationPredictive:
		w.predictive = predictive{cfg: cfg, z: cfg.z()}
		return &w.predictive
	}
	// NormalizationCalendar's window is NormalizationLead's: its caller
	// replaces the threshold once the calendar has a history.
	w.lead = lead{cfg: cfg, z: cfg.z()}
	return &w.lead
}

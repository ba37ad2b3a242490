package controller

// optionalSignal is a measurement some clusters do not export: its pods
// are judged without it, never as healthy for it.
type optionalSignal struct {
	name   string // the metric's label
	series func(*Measurements) map[podKey]float64
	// among is the pods that should have it (nil: every pod whose CPU
	// was measured).
	among func(*Measurements) map[podKey]float64
	// why says which clusters lack it.
	why string
}

var optionalSignals = []optionalSignal{
	{"latency_mean", func(m *Measurements) map[podKey]float64 { return m.LatencyMean },
		func(m *Measurements) map[podKey]float64 { return m.Latency },
		"the sidecars' istio_request_duration_milliseconds_sum or _count is not scraped; a node cut for its latency waits for its next full latency pool to be given back"},
	{"cpu_pressure", func(m *Measurements) map[podKey]float64 { return m.CPUWaiting }, nil,
		"cAdvisor exports CPU pressure only on cgroup v2 nodes with PSI on; their CPU waiting is not judged"},
	{"cpu_throttling", func(m *Measurements) map[podKey]float64 { return m.CPUThrottled }, nil,
		"cAdvisor exports throttled periods only for containers with a CPU limit; waiting beside a busy pod's own quota is not judged"},
	{"cpu_period", func(m *Measurements) map[podKey]float64 { return m.CPUPeriod }, nil,
		"cAdvisor exports the quota's period only for containers with a CPU limit; their throttled periods are taken to be --cfs-quota-period long"},
}

// reportMissingSignals sets, for each optional signal, how many pods that
// should have it (by default, those whose CPU was measured) have none of
// its series, and logs once each time a signal goes missing or comes back,
// not at every collection.
func (c *Controller) reportMissingSignals(m *Measurements) {
	for _, sig := range optionalSignals {
		series, among := sig.series(m), m.CPU
		if sig.among != nil {
			among = sig.among(m)
		}
		missing := 0
		for k := range among {
			if _, ok := series[k]; !ok {
				missing++
			}
		}
		c.tel.signalMissing.WithLabelValues(sig.name).Set(float64(missing))
		was := c.missingSignals[sig.name]
		switch {
		case missing > 0 && was == 0:
			c.log.Warn("signal missing for some pods", "signal", sig.name, "pods", missing, "of", len(among), "why", sig.why)
		case missing == 0 && was > 0:
			c.log.Info("signal present for every pod again", "signal", sig.name)
		}
		c.missingSignals[sig.name] = missing
	}
}

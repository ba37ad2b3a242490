package controller

// optionalSignal is a measurement some clusters do not export: its pods
// are judged without it, never as healthy for it.
type optionalSignal struct {
	name   string // the metric's label
	series func(*Measurements) map[podKey]float64
	// why says which clusters lack it.
	why string
}

var optionalSignals = []optionalSignal{
	{"cpu_pressure", func(m *Measurements) map[podKey]float64 { return m.CPUWaiting },
		"cAdvisor exports CPU pressure only on cgroup v2 nodes with PSI on; their CPU waiting is not judged"},
	{"cpu_throttling", func(m *Measurements) map[podKey]float64 { return m.CPUThrottled },
		"cAdvisor exports throttled periods only for containers with a CPU limit; waiting beside a busy pod's own quota is not judged"},
	{"cpu_period", func(m *Measurements) map[podKey]float64 { return m.CPUPeriod },
		"cAdvisor exports the quota's period only for containers with a CPU limit; their throttled periods are taken to be --cfs-quota-period long"},
}

// reportMissingSignals sets, for each optional signal, how many pods whose
// CPU was measured have none of its series, and logs once each time a
// signal goes missing or comes back, not at every collection.
func (c *Controller) reportMissingSignals(m *Measurements) {
	for _, sig := range optionalSignals {
		series := sig.series(m)
		missing := 0
		for k := range m.CPU {
			if _, ok := series[k]; !ok {
				missing++
			}
		}
		c.tel.signalMissing.WithLabelValues(sig.name).Set(float64(missing))
		was := c.missingSignals[sig.name]
		switch {
		case missing > 0 && was == 0:
			c.log.Warn("signal missing for some pods", "signal", sig.name, "pods", missing, "of", len(m.CPU), "why", sig.why)
		case missing == 0 && was > 0:
			c.log.Info("signal present for every pod again", "signal", sig.name)
		}
		c.missingSignals[sig.name] = missing
	}
}

package metric

// Form says how the threshold reaches the HPA.
type Form string

const (
	// FormNormalized reports 100·utilisation/threshold against a fixed
	// target of 100. It works on KEDA's pull path, where the HPA's target is
	// fixed when KEDA creates the HPA.
	FormNormalized Form = "normalized"
	// FormUtilization reports raw utilisation (percent) against a target
	// equal to the current threshold, pushed through StreamMetricSpec. It
	// needs an `external-push` trigger.
	FormUtilization Form = "utilization"
	// FormPods reports the arriving requests' CPU in pods' worth at the
	// threshold (the CPU they need ÷ θ of one pod's CPU request) against a
	// fixed target of 1, for metricType AverageValue: the HPA's count is
	// ceil(value), whatever it counts as ready.
	FormPods Form = "pods"
)

// valid reports whether f is one of the forms above.
func (f Form) valid() bool { return f == FormNormalized || f == FormUtilization || f == FormPods }

package outcome

// StepCapacity is how soon after a step up in the workload an autoscaled
// component had the ready replicas its new demand needs.
type StepCapacity struct {
	// At is the step's time in seconds; Rate the external rate after it.
	At, Rate  float64
	Component string
	// Needed is the ready pods whose CPU requests cover the step's demand:
	// rate × calls per external request × CPU per request on a node of
	// mean speed ÷ the CPU request, rounded up. It is the same count for
	// every run, whatever its target: the CPU the scheduler guarantees the
	// pods is what the demand needs.
	Needed int
	// Seconds is the time from the step until that many pods were ready;
	// NaN when it never happened within the run.
	Seconds float64
}

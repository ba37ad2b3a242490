// Package metric is artt-scaler's arithmetic, without I/O: from a
// workload's measured request rates and CPU it computes the adaptive
// threshold (package threshold) and the metric the HPA scales on. It also
// reads the trigger metadata that shapes them (Settings). artt-scaler
// (package scaler) fills the measurements from Prometheus; artt-lab fills
// them from its emulator, and the live loop reads the same settings.
//
// How the threshold reaches the HPA. In the default "normalized" metric form
// the metric value is 100·u/θ against a fixed target of 100: θ the threshold
// in percent, u the CPU the arriving requests need in percent of the ready
// pods' CPU requests. u is the measured CPU utilisation unless more requests
// arrive than are served (by more than 10%); then it is the arrivals priced
// at the CPU per request measured without such a backlog (offeredLoad), so
// it keeps growing when saturated pods' CPU cannot. With the
// trigger's metricType: Value the HPA computes
// desired = ceil(readyPods · value/100) = ceil(readyPods · u/θ), and leaves
// the replica count alone while |value/100 − 1| ≤ 0.1 (its tolerance). The
// target never changes, which is what KEDA's pull path needs: KEDA fixes the
// HPA's target when it creates the HPA. In the "utilization" form (for an
// external-push trigger) the value is u and the target θ, pushed through
// StreamMetricSpec whenever it moves.
package metric

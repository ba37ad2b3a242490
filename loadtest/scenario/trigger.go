package scenario

// TriggerMetadata is the artt-scaler trigger metadata of an autoscaled
// component in run r, before the autoscaler's own keys: the scenario's and
// the run's metadata over the defaults the lab and the live loop share.
// workload is the name the queries select and prometheus the server they
// ask. leadTime defaults to what docs/scaler.md tells an operator to set:
// one HPA sync plus the pods' startup.
func (s *Scenario) TriggerMetadata(r Run, workload, prometheus string) Metadata {
	md := Metadata{
		"prometheusAddress": prometheus,
		"workload":          workload,
		"step":              s.Control.SampleInterval.String(),
		"leadTime":          (s.Control.HPASyncPeriod.Duration + s.Control.PodStartup.Duration).String(),
	}
	for k, v := range s.Control.ScalerMetadata {
		md[k] = v
	}
	for k, v := range r.ScalerMetadata {
		md[k] = v
	}
	return md
}

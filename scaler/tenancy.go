package scaler

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/artt-dev/artt/scaler/metric"
)

// Tenancy is what artt-scaler lets a ScaledObject's author choose. One
// artt-scaler serves every namespace, and whoever may create a ScaledObject
// writes its trigger metadata. Without limits that author could make the
// scaler send requests to any URL it can reach from inside the cluster (a
// server-side request forgery), and run any PromQL against the shared
// Prometheus, which holds every namespace's series.
type Tenancy struct {
	// AllowedPrometheus are the Prometheus base URLs a trigger's
	// prometheusAddress may name: the same scheme and host (port included),
	// and a path equal to or below the allowed one. Empty allows only the
	// default address.
	AllowedPrometheus []string
	// AllowQueryOverrides lets triggers replace the PromQL queries
	// (QueryOverrideKeys).
	AllowQueryOverrides bool
}

// QueryOverrideKeys are the metadata keys that replace a query.
var QueryOverrideKeys = []string{"cpuUsageQuery", "cpuRequestQuery", "requestRateQuery", "arrivalRateQuery", "podCPURequestQuery", "calendarQuery"}

// CheckAllowedPrometheus validates one --allowed-prometheus value.
func CheckAllowedPrometheus(prefix string) error {
	u, err := url.Parse(prefix)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL: %w", prefix, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: the scheme must be http or https", prefix)
	case u.Host == "":
		return fmt.Errorf("%q: a host is required", prefix)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%q: a Prometheus base URL has no user, query or fragment", prefix)
	}
	return nil
}

// admit checks a parsed trigger against the rules. It returns a
// *metric.MetadataError naming the key, its value and the flag that would allow it.
func (t Tenancy) admit(md map[string]string, spec Spec, defaultPrometheus string) error {
	if !t.AllowQueryOverrides {
		for _, k := range QueryOverrideKeys {
			if v, ok := md[k]; ok {
				return &metric.MetadataError{Key: k, Value: v, Reason: "query overrides are off: artt-scaler runs only its own queries, for the ScaledObject's namespace, unless started with --allow-query-overrides"}
			}
		}
	}
	allowed := t.AllowedPrometheus
	if len(allowed) == 0 && defaultPrometheus != "" {
		allowed = []string{defaultPrometheus}
	}
	for _, prefix := range allowed {
		if within(spec.PrometheusAddress, prefix) {
			return nil
		}
	}
	if len(allowed) == 0 {
		return &metric.MetadataError{Key: "prometheusAddress", Value: spec.PrometheusAddress, Reason: "artt-scaler allows no Prometheus: start it with --prometheus-address or --allowed-prometheus"}
	}
	return &metric.MetadataError{Key: "prometheusAddress", Value: spec.PrometheusAddress, Reason: fmt.Sprintf(
		"not an allowed Prometheus (allowed: %s); an operator can add it with --allowed-prometheus", strings.Join(allowed, ", "))}
}

// within reports whether address is the allowed base URL or a path below
// it. Host and port must match exactly: a prefix match on the text would let
// http://prometheus.monitoring:9090.attacker.example through, and a user
// part (http://allowed@elsewhere) names another host.
func within(address, allowed string) bool {
	a, err := url.Parse(address)
	if err != nil || a.User != nil || a.RawQuery != "" || a.Fragment != "" || a.Opaque != "" {
		return false
	}
	b, err := url.Parse(allowed)
	if err != nil {
		return false
	}
	if !strings.EqualFold(a.Scheme, b.Scheme) || !strings.EqualFold(a.Host, b.Host) {
		return false
	}
	// A path that cleaning changes (.., //, /./) is refused rather than
	// interpreted: the request goes out with the raw path.
	raw := "/" + strings.TrimPrefix(a.Path, "/")
	p := path.Clean(raw)
	if p != strings.TrimSuffix(raw, "/") && raw != "/" {
		return false
	}
	base := path.Clean("/" + b.Path)
	return p == base || strings.HasPrefix(p, strings.TrimSuffix(base, "/")+"/")
}

package controller

import (
	"encoding/json"
	"fmt"

	networkingapi "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// DataPlane is what carries the rules ARTT writes to the callers.
type DataPlane string

const (
	// DataPlaneEnvoy is Istio's sidecars: locality weights apply under
	// every load-balancing policy, least-request inside a locality.
	DataPlaneEnvoy DataPlane = "envoy"
	// DataPlaneGRPC is proxyless gRPC (xds:/// clients fed by istiod): its
	// least-request has no locality layer and drops the weights, which it
	// honours only under ROUND_ROBIN, and istiod gives it round robin
	// where a rule sets no policy. So where the user's rule leaves
	// loadBalancer.simple unset, ARTT writes it: ROUND_ROBIN with its
	// table, LEAST_REQUEST when it lifts the table.
	DataPlaneGRPC DataPlane = "grpc"
)

// ParseDataPlane checks a data plane's name ("" is Envoy's).
func ParseDataPlane(s string) (DataPlane, error) {
	switch d := DataPlane(s); d {
	case "":
		return DataPlaneEnvoy, nil
	case DataPlaneEnvoy, DataPlaneGRPC:
		return d, nil
	}
	return "", fmt.Errorf("%q: must be %q or %q", s, DataPlaneEnvoy, DataPlaneGRPC)
}

// simplePath is loadBalancer.simple in a DestinationRule's managed fields.
var simplePath = []string{"f:spec", "f:trafficPolicy", "f:loadBalancer", "f:simple"}

// usersSimple is the loadBalancer.simple the user's rule sets, "" where it
// sets none or where ARTT alone set it (on gRPC); a policy whose owners
// cannot be told is the user's.
func usersSimple(r *networkingv1.DestinationRule) string {
	lb := r.Spec.GetTrafficPolicy().GetLoadBalancer()
	if lb.GetSimple() == networkingapi.LoadBalancerSettings_UNSPECIFIED {
		return ""
	}
	if len(r.ManagedFields) == 0 {
		return lb.GetSimple().String()
	}
	for _, mf := range r.ManagedFields {
		if mf.Manager != FieldManager && mf.FieldsV1 != nil && ownsPath(mf.FieldsV1.Raw, simplePath) {
			return lb.GetSimple().String()
		}
	}
	return ""
}

// ownsPath reports whether a managed-fields entry (FieldsV1 JSON) holds the
// field at path.
func ownsPath(raw []byte, path []string) bool {
	var node map[string]any
	if json.Unmarshal(raw, &node) != nil {
		return false
	}
	for _, key := range path {
		next, ok := node[key].(map[string]any)
		if !ok {
			return false
		}
		node = next
	}
	return true
}

// carriesWeightsOnGRPC reports whether a user's rule (nil for none) sets
// ROUND_ROBIN, the one policy under which gRPC honours the weights.
func carriesWeightsOnGRPC(r *networkingv1.DestinationRule) bool {
	return r != nil && usersSimple(r) == networkingapi.LoadBalancerSettings_ROUND_ROBIN.String()
}

// leavesPickToARTT reports whether ARTT may write loadBalancer.simple into
// a component's rule, given its user's rule (nil for none, when ARTT
// writes its own): one that sets neither a simple policy nor a consistent
// hash (simple's sibling in a oneof).
func leavesPickToARTT(r *networkingv1.DestinationRule) bool {
	if r == nil {
		return true
	}
	return usersSimple(r) == "" && r.Spec.GetTrafficPolicy().GetLoadBalancer().GetConsistentHash() == nil
}

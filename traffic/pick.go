package traffic

// Pick is how a component's callers pick one pod among those a route lets
// them use: inside a locality under locality weights, or among every pod
// without them. The handover between a table and the data plane's own
// balancing prices the one the component really has.
type Pick string

const (
	// PickByQueue compares the pods' queues as each caller sees them:
	// Istio's default LEAST_REQUEST (Envoy's and gRPC's power of two
	// choices) and Linkerd's peak-EWMA. It is the zero value, as
	// LEAST_REQUEST is Istio's default.
	PickByQueue Pick = ""
	// PickBlind gives every pod the same part whatever its queue or its
	// speed: ROUND_ROBIN and RANDOM.
	PickBlind Pick = "blind"
)

// PickOf is the pick of a DestinationRule's loadBalancer.simple: blind for
// ROUND_ROBIN and RANDOM, by queue for LEAST_REQUEST, LEAST_CONN (its
// deprecated name), an unset policy (Istio's default is LEAST_REQUEST) and
// any other.
func PickOf(simple string) Pick {
	switch simple {
	case "ROUND_ROBIN", "RANDOM":
		return PickBlind
	}
	return PickByQueue
}

// valid reports whether p is one of the picks above.
func (p Pick) valid() bool { return p == PickByQueue || p == PickBlind }

package backend

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	_ "google.golang.org/grpc/xds" // the xds:/// resolver and xDS balancers
)

// Dialer opens a client connection to a callee component.
type Dialer struct {
	// Namespace is the run's namespace, where the callees' Services are.
	Namespace string
	// Static, when set, gives each callee's endpoints (ip:port) and the
	// balancer is gRPC's weighted_round_robin with ORCA per-call reports
	// (gRFC A58): istiod cannot send that policy, so a client gets it from
	// its own service config. Otherwise the target is xds:///, and istiod
	// sends the endpoints, their locality weights and the policy.
	Static map[string][]string
}

// wrrServiceConfig selects weighted round robin at gRPC's defaults
// (blackout 10 s, weights expire after 3 min, recomputed every second).
const wrrServiceConfig = `{"loadBalancingConfig":[{"weighted_round_robin":{}}]}`

// Dial opens a connection to component's Service.
func (d Dialer) Dial(component string) (*grpc.ClientConn, error) {
	creds := grpc.WithTransportCredentials(insecure.NewCredentials())
	if d.Static == nil {
		return grpc.NewClient(fmt.Sprintf("xds:///%s:%d", Host(d.Namespace, component), Port), creds)
	}
	addrs, ok := d.Static[component]
	if !ok || len(addrs) == 0 {
		return nil, fmt.Errorf("no endpoints listed for %s", component)
	}
	r := manual.NewBuilderWithScheme("live")
	var state resolver.State
	for _, a := range addrs {
		state.Addresses = append(state.Addresses, resolver.Address{Addr: a})
	}
	r.InitialState(state)
	return grpc.NewClient("live:///"+ObjectName(component), creds, grpc.WithResolvers(r), grpc.WithDefaultServiceConfig(wrrServiceConfig))
}

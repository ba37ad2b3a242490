package mesh_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	edsType = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
	cdsType = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
)

// backendCluster is the outbound cluster a caller's sidecar has for ns's
// backend Service.
func backendCluster(ns string) string {
	return fmt.Sprintf("outbound|80||backend.%s.svc.cluster.local", ns)
}

// sidecar is an xDS stream posing as the sidecar of ns's frontend pod on
// node: istiod finds the pod from the node ID and takes the proxy's
// locality from the pod's node.
type sidecar struct {
	stream discoveryv3.AggregatedDiscoveryService_StreamAggregatedResourcesClient
	node   *corev3.Node
	cancel func()
}

func newSidecar(t *testing.T, ns, node string) *sidecar {
	t.Helper()
	i := 0
	for j, n := range nodesOf(ns) {
		if n == node {
			i = j
		}
	}
	pod, ip := "frontend-"+node, podIP(ns, "frontend", i)
	md, err := structpb.NewStruct(map[string]any{
		"NAMESPACE": ns, "CLUSTER_ID": "Kubernetes", "ISTIO_VERSION": "1.29.0", "INSTANCE_IPS": ip,
		"LABELS": map[string]any{"app": "frontend"}, "NAME": pod,
	})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(xdsAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testScope)
	stream, err := discoveryv3.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &sidecar{stream: stream, cancel: func() { cancel(); conn.Close() },
		node: &corev3.Node{Id: fmt.Sprintf("sidecar~%s~%s.%s~%s.svc.cluster.local", ip, pod, ns, ns), Metadata: md}}
	t.Cleanup(s.cancel)
	return s
}

// request asks for resources of a type (names empty: all of them).
func (s *sidecar) request(t *testing.T, typeURL string, names ...string) {
	t.Helper()
	if err := s.stream.Send(&discoveryv3.DiscoveryRequest{Node: s.node, TypeUrl: typeURL, ResourceNames: names}); err != nil {
		t.Fatal(err)
	}
}

// receive waits for istiod's next push of a type within timeout, and acks
// it, so istiod sends the next one.
func (s *sidecar) receive(t *testing.T, typeURL string, timeout time.Duration) *discoveryv3.DiscoveryResponse {
	t.Helper()
	type answer struct {
		r   *discoveryv3.DiscoveryResponse
		err error
	}
	deadline := time.After(timeout)
	for {
		got := make(chan answer, 1)
		go func() {
			r, err := s.stream.Recv()
			got <- answer{r, err}
		}()
		select {
		case a := <-got:
			if a.err != nil {
				t.Fatal(a.err)
			}
			_ = s.stream.Send(&discoveryv3.DiscoveryRequest{Node: s.node, TypeUrl: a.r.TypeUrl, VersionInfo: a.r.VersionInfo,
				ResponseNonce: a.r.Nonce, ResourceNames: names(a.r)})
			if a.r.TypeUrl == typeURL {
				return a.r
			}
		case <-deadline:
			t.Fatalf("no %s from istiod within %s", typeURL, timeout)
		}
	}
}

// names are the resource names a response carries, to keep them
// subscribed in the ack.
func names(r *discoveryv3.DiscoveryResponse) []string {
	if r.TypeUrl != edsType {
		return nil
	}
	var out []string
	for _, a := range r.Resources {
		var cla endpointv3.ClusterLoadAssignment
		if a.UnmarshalTo(&cla) == nil {
			out = append(out, cla.ClusterName)
		}
	}
	return out
}

// endpoints is what the sidecar receives for a cluster, by locality
// (region/zone/subzone): its weight (0 when istiod sets none), its
// priority and how many endpoints it holds.
type localityEndpoints struct {
	weight, priority uint32
	endpoints        int
}

func endpointsOf(t *testing.T, r *discoveryv3.DiscoveryResponse, cluster string) map[string]localityEndpoints {
	t.Helper()
	for _, a := range r.Resources {
		var cla endpointv3.ClusterLoadAssignment
		if err := a.UnmarshalTo(&cla); err != nil {
			t.Fatal(err)
		}
		if cla.ClusterName != cluster {
			continue
		}
		out := map[string]localityEndpoints{}
		for _, l := range cla.Endpoints {
			key := l.GetLocality().GetRegion() + "/" + l.GetLocality().GetZone() + "/" + l.GetLocality().GetSubZone()
			out[key] = localityEndpoints{weight: l.GetLoadBalancingWeight().GetValue(), priority: l.GetPriority(), endpoints: len(l.GetLbEndpoints())}
		}
		return out
	}
	t.Fatalf("no ClusterLoadAssignment for %s", cluster)
	return nil
}

// clusterOf finds a cluster in a CDS response.
func clusterOf(t *testing.T, r *discoveryv3.DiscoveryResponse, name string) *clusterv3.Cluster {
	t.Helper()
	for _, a := range r.Resources {
		var c clusterv3.Cluster
		if err := a.UnmarshalTo(&c); err != nil {
			t.Fatal(err)
		}
		if c.Name == name {
			return &c
		}
	}
	t.Fatalf("no cluster %s among %d", name, len(r.Resources))
	return nil
}

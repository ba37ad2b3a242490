// Package mesh checks what a sidecar receives from a real istiod for the
// DestinationRules artt-traffic writes: istiod (pilot-discovery, built by
// hack/build-istiod.sh) runs against envtest's kube-apiserver, artt-traffic
// writes its rules from a real Prometheus's measurements, and a small ADS
// client posing as a sidecar on each node reads the endpoints and clusters
// istiod would push to it. It is its own module: the xDS types
// (go-control-plane) stay out of the product's go.mod.
package mesh

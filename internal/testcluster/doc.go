// Package testcluster starts the real components ARTT's tests run against:
// envtest's kube-apiserver and etcd (StartControlPlane), and beside them
// kube-controller-manager, KEDA's operator and metrics adapter (with the
// aggregation layer that forwards to it), kwok's nodes, artt-scheduler,
// istiod, and any ARTT command built from the checkout, each a process with
// its log kept, on free loopback ports. The end-to-end tests (test/e2e), the
// mesh test (test/mesh), the chart test (charts/charttest), artt-scheduler's
// and artt-traffic's tests and the live loop (loadtest/live) share it; only
// scaler/kedatest starts its own, as it builds against KEDA's versions of
// the Kubernetes libraries. The binaries come from hack/build-test-binaries.sh,
// hack/build-e2e-binaries.sh and hack/build-istiod.sh.
package testcluster

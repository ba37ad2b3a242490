// Package e2e runs artt-scaler end to end with the real chain a cluster
// runs: KEDA's operator reads a ScaledObject applied with kubectl and
// creates the HPA, kube-controller-manager's HPA controller asks the
// external metrics API, the kube-apiserver's aggregation layer forwards to
// KEDA's metrics adapter, the adapter asks the operator, and the operator
// asks artt-scaler, which reads Prometheus. Every component is the real
// binary, built from the Go module proxy by hack/build-e2e-binaries.sh and
// hack/build-test-binaries.sh; the only stand-in is for the kubelet, which
// cannot run here: Workload binds the application's pods to nodes and
// marks them Running and Ready. This package holds that stand-in, the
// workload's Prometheus exporter and the test's certificate authority; the
// tests, in the _test files, start the cluster; `make e2e` runs them.
package e2e

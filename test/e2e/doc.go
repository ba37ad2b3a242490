// Package e2e runs artt-scaler end to end with the real chain a cluster
// runs: KEDA's operator reads a ScaledObject applied with kubectl and
// creates the HPA, kube-controller-manager's HPA controller asks the
// external metrics API, the kube-apiserver's aggregation layer forwards to
// KEDA's metrics adapter, the adapter asks the operator, and the operator
// asks artt-scaler, which reads Prometheus. Every component is the real
// binary, built from the Go module proxy by hack/build-e2e-binaries.sh and
// hack/build-test-binaries.sh. The pods are placed by artt-scheduler (with
// deploy/scheduler's configuration, ARTTPlacement on) on nodes kwok runs:
// kwok plays their kubelets, so the only stand-in left is the application's
// containers, whose metrics Workload's exporter serves. This package holds
// the workload and its exporter; the tests, in the _test files, start the
// cluster with package internal/testcluster; `make e2e` runs them.
package e2e

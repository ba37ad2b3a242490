// Package kedatest checks artt-scaler against KEDA's own external scaler
// client (github.com/kedacore/keda/v2/pkg/scalers, v2.21.0), the code the KEDA
// operator runs. It is a separate module because KEDA's client pulls in about
// 390 modules and pins k8s.io and grpc versions the main module must not
// inherit. Its tests build and start the real artt-scaler binary against a
// real Prometheus. Run them with `make test-keda`.
package kedatest

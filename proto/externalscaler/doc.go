// Package externalscaler holds KEDA's external scaler gRPC contract.
//
// externalscaler.proto is copied byte for byte from KEDA v2.21.0
// (github.com/kedacore/keda/v2, pkg/scalers/externalscaler/externalscaler.proto);
// only its go_package option differs, so the service name, message names and
// field numbers are wire-identical to what the KEDA operator sends. The Go code
// is generated from it with `make proto` (protoc-gen-go v1.36.12,
// protoc-gen-go-grpc v1.6.2). To follow a newer KEDA, copy its proto again and
// regenerate.
package externalscaler

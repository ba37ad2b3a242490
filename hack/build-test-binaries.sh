#!/usr/bin/env bash
# Builds the control-plane binaries envtest needs (kube-apiserver and etcd)
# from the Go module proxy, the only source this project's machines reach, and
# caches them outside the clone, keyed by version. Prints the directory to use
# as KUBEBUILDER_ASSETS. A warm cache returns at once; a cold build takes about
# seven minutes on two cores.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.37.2}"
STAGING_VERSION="v0${K8S_VERSION#v1}"          # v1.37.2 → v0.37.2
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE="${ARTT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artt}"
OUT="$CACHE/envtest-k8s-$K8S_VERSION-etcd-$ETCD_VERSION"

if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ]; then
  echo "$OUT"
  exit 0
fi
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# kube-apiserver: a throwaway module that requires k8s.io/kubernetes and every
# staging module it replaces (the proxy does not serve k8s.io/sample-*).
staging="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap
  code-generator component-base component-helpers controller-manager cri-api cri-client cri-streaming
  csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator
  kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission
  streaming"
mkdir -p "$work/k8s"
{
  echo "module artt.local/k8sbuild"
  echo
  echo "go 1.26"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  for m in $staging; do echo "require k8s.io/$m $STAGING_VERSION"; done
  for m in $staging; do echo "replace k8s.io/$m => k8s.io/$m $STAGING_VERSION"; done
} > "$work/k8s/go.mod"
printf 'package k8sbuild\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n' > "$work/k8s/deps.go"
(
  cd "$work/k8s"
  GOFLAGS=-mod=mod go mod tidy >/dev/null
  # A plain build reports version v0.0.0-master+$Format:%H$; clients read it.
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  ldflags=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
)

# etcd: its go.mod has replace directives, so `go install …@version` is
# refused; build the server package from a helper module instead.
mkdir -p "$work/etcd"
printf 'module artt.local/etcdbuild\n\ngo 1.26\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" > "$work/etcd/go.mod"
printf 'package etcdbuild\n\nimport _ "go.etcd.io/etcd/server/v3/etcdmain"\n' > "$work/etcd/deps.go"
(
  cd "$work/etcd"
  GOFLAGS=-mod=mod go mod tidy >/dev/null
  cat > main.go <<'GO'
//go:build ignore

package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  CGO_ENABLED=0 go build -trimpath -o "$OUT/etcd" main.go
)
echo "$OUT"

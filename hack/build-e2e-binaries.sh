#!/usr/bin/env bash
# Builds the components the end-to-end test runs beside envtest's
# kube-apiserver and etcd: kube-controller-manager and kubectl of the same
# Kubernetes version, and KEDA's operator and metrics adapter, all from the Go
# module proxy, cached outside the clone by version. Prints the directory.
# A warm cache returns at once; cold, about ten minutes on two cores (the
# Kubernetes build cache is shared with hack/build-test-binaries.sh).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.37.2}"
STAGING_VERSION="v0${K8S_VERSION#v1}"
KEDA_VERSION="${KEDA_VERSION:-v2.21.0}"
CACHE="${ARTT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artt}"
OUT="$CACHE/e2e-k8s-$K8S_VERSION-keda-$KEDA_VERSION"

have() { for b in "$@"; do [ -x "$OUT/$b" ] || return 1; done; }
if have kube-controller-manager kubectl keda-operator keda-adapter; then
  echo "$OUT"
  exit 0
fi
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# kube-controller-manager and kubectl: the same throwaway module as
# kube-apiserver's (k8s.io/kubernetes plus every staging module it replaces).
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
printf 'package k8sbuild\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"\n\t_ "k8s.io/kubectl/pkg/cmd"\n)\n' > "$work/k8s/deps.go"
(
  cd "$work/k8s"
  GOFLAGS=-mod=mod go mod tidy >/dev/null
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  ldflags=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/kubectl" k8s.io/kubernetes/cmd/kubectl
)

# KEDA: its go.mod has replace directives, so `go install …@version` is
# refused; build the operator and the adapter inside a writable copy of the
# module's source.
src=$(go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
cp -r "$src" "$work/keda"
chmod -R u+w "$work/keda"
(
  cd "$work/keda"
  ldflags="-X github.com/kedacore/keda/v2/version.Version=$KEDA_VERSION"
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/keda-operator" ./cmd/operator
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/keda-adapter" ./cmd/adapter
)
echo "$OUT"

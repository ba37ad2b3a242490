#!/usr/bin/env bash
# Builds the components the end-to-end test runs beside envtest's
# kube-apiserver and etcd: kube-controller-manager and kubectl of the same
# Kubernetes version, and KEDA's operator and metrics adapter, all from the Go
# module proxy, cached outside the clone by version. Prints the directory.
# A warm cache returns at once; cold, about ten minutes on two cores (the
# Kubernetes build cache is shared with hack/build-test-binaries.sh).
set -euo pipefail

. "$(dirname "$0")/lib-k8s.sh"

K8S_VERSION="${K8S_VERSION:-v1.37.2}"
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

# kube-controller-manager and kubectl, from the same throwaway module as
# kube-apiserver's (hack/lib-k8s.sh).
k8s_module "$work/k8s" "$K8S_VERSION" k8s.io/kubernetes/cmd/kube-controller-manager/app k8s.io/kubectl/pkg/cmd
(
  cd "$work/k8s"
  ldflags="$(k8s_ldflags "$K8S_VERSION")"
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

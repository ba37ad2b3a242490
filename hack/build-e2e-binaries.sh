#!/usr/bin/env bash
# Builds the components the end-to-end test runs beside envtest's
# kube-apiserver and etcd: kube-controller-manager and kubectl of the same
# Kubernetes version, KEDA's operator and metrics adapter, and kwok, all from
# the Go module proxy, cached outside the clone by version. Prints the
# directory. A warm cache returns at once; cold, about ten minutes on two
# cores (the Kubernetes build cache is shared with hack/build-test-binaries.sh),
# and kwok about two more.
#
# Arguments name the parts to build (kwok, kubernetes, keda; all without
# any); each part already built is skipped. .ci/run builds kwok and
# kubernetes beside make test and leaves KEDA to make e2e: make test-keda
# compiles KEDA's tree for its own test, and two builds of one tree at once
# each compile all of it.
set -euo pipefail

. "$(dirname "$0")/lib-k8s.sh"

K8S_VERSION="${K8S_VERSION:-v1.37.2}"
KEDA_VERSION="${KEDA_VERSION:-v2.21.0}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
CACHE="${ARTT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artt}"
OUT="$CACHE/e2e-k8s-$K8S_VERSION-keda-$KEDA_VERSION"
KWOK="$CACHE/kwok-$KWOK_VERSION"

# kwok has no replace directives: `go install` lets its own go.mod govern.
# Run on its own (without kwokctl) it needs its stages as configuration:
# kwokctl's defaults, from the same module, in kwok-stages.yaml. Both are
# cached on their own and linked into the directory printed.
parts="${*:-kwok kubernetes keda}"
for part in $parts; do
  case $part in
    kwok | kubernetes | keda) ;;
    *) echo "build-e2e-binaries.sh: unknown part $part (kwok, kubernetes, keda)" >&2; exit 2 ;;
  esac
done
wants() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
have() { for b in "$@"; do [ -x "$OUT/$b" ] || return 1; done; }
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

if wants kwok && { [ ! -x "$KWOK/kwok" ] || [ ! -s "$KWOK/kwok-stages.yaml" ]; }; then
  mkdir -p "$KWOK"
  CGO_ENABLED=0 GOBIN="$KWOK" go install -trimpath "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  src=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$src/kustomize/stage/$f"
  done > "$KWOK/kwok-stages.yaml"
fi
if wants kwok; then
  ln -sfn "$KWOK/kwok" "$OUT/kwok"
  ln -sfn "$KWOK/kwok-stages.yaml" "$OUT/kwok-stages.yaml"
fi

# kube-controller-manager and kubectl, from the same throwaway module as
# kube-apiserver's (hack/lib-k8s.sh).
if wants kubernetes && ! have kube-controller-manager kubectl; then
  k8s_module "$work/k8s" "$K8S_VERSION" k8s.io/kubernetes/cmd/kube-controller-manager/app k8s.io/kubectl/pkg/cmd
  (
    cd "$work/k8s"
    ldflags="$(k8s_ldflags "$K8S_VERSION")"
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/kubectl" k8s.io/kubernetes/cmd/kubectl
  )
fi

# KEDA: its go.mod has replace directives, so `go install …@version` is
# refused. A throwaway module requires it and copies its replace directives,
# so the build list is KEDA's own: the same versions scaler/kedatest pins,
# built with the same flags, and the build cache compiles KEDA's tree once.
if wants keda && ! have keda-operator keda-adapter; then
  src=$(go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  mkdir -p "$work/keda"
  {
    echo "module artt.local/kedabuild"
    echo
    echo "go 1.26"
    echo
    echo "require github.com/kedacore/keda/v2 $KEDA_VERSION"
    awk '/^replace \(/ { block = 1; next } block && /^\)/ { block = 0; next }
      block { print "replace " $0; next } /^replace / { print }' "$src/go.mod"
  } > "$work/keda/go.mod"
  printf '//go:build tools\n\npackage kedabuild\n\nimport (\n\t_ "github.com/kedacore/keda/v2/cmd/adapter"\n\t_ "github.com/kedacore/keda/v2/cmd/operator"\n)\n' > "$work/keda/tools.go"
  (
    cd "$work/keda"
    GOFLAGS=-mod=mod go mod tidy >/dev/null
    ldflags="-X github.com/kedacore/keda/v2/version.Version=$KEDA_VERSION"
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/keda-operator" github.com/kedacore/keda/v2/cmd/operator
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/keda-adapter" github.com/kedacore/keda/v2/cmd/adapter
  )
fi
# KEDA's CRDs (ScaledObject among them) from the module the binaries are
# built from, for envtest to install: a copy of a few files, so a cache
# built before they were kept gets them without a rebuild.
if wants keda && [ ! -s "$OUT/keda-crds/keda.sh_scaledobjects.yaml" ]; then
  dir=$(go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  mkdir -p "$OUT/keda-crds"
  cp "$dir"/config/crd/bases/*.yaml "$OUT/keda-crds/"
  chmod u+w "$OUT"/keda-crds/*.yaml
fi
echo "$OUT"

#!/usr/bin/env bash
# Builds istiod (pilot-discovery) from the Go module proxy, cached outside
# the clone by version, and prints the directory: pilot-discovery and
# crd-all.gen.yaml, Istio's CRDs from the same module. The proxy serves
# istio.io/istio only as pseudo-versions of its main branch (its release
# tags have no "v"), so one is pinned; `go install …@version` builds it
# under Istio's own go.mod, which never enters the project's. A warm cache
# returns at once; cold, about 13 minutes on two cores.
set -euo pipefail

ISTIO_VERSION="${ISTIO_VERSION:-v0.0.0-20260827124520-eed52ebb66ad}"
CACHE="${ARTT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artt}"
OUT="$CACHE/istiod-$ISTIO_VERSION"

if [ -x "$OUT/pilot-discovery" ] && [ -f "$OUT/crd-all.gen.yaml" ]; then
  echo "$OUT"
  exit 0
fi
mkdir -p "$OUT"
CGO_ENABLED=0 GOBIN="$OUT" GOFLAGS=-trimpath go install "istio.io/istio/pilot/cmd/pilot-discovery@$ISTIO_VERSION"
src=$(go mod download -json "istio.io/istio@$ISTIO_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
cp "$src/manifests/charts/base/files/crd-all.gen.yaml" "$OUT/crd-all.gen.yaml"
echo "$OUT"

#!/usr/bin/env bash
# Builds the control-plane binaries envtest needs (kube-apiserver and etcd)
# from the Go module proxy, the only source this project's machines reach, and
# caches them outside the clone, keyed by version. Prints the directory to use
# as KUBEBUILDER_ASSETS. A warm cache returns at once; a cold build takes about
# seven minutes on two cores.
set -euo pipefail

. "$(dirname "$0")/lib-k8s.sh"

K8S_VERSION="${K8S_VERSION:-v1.37.2}"
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

# kube-apiserver, from a throwaway module (hack/lib-k8s.sh).
k8s_module "$work/k8s" "$K8S_VERSION" k8s.io/kubernetes/cmd/kube-apiserver/app
(
  cd "$work/k8s"
  CGO_ENABLED=0 go build -trimpath -ldflags "$(k8s_ldflags "$K8S_VERSION")" -o "$OUT/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
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

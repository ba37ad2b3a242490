# Shared by the build scripts: how to build Kubernetes commands from the Go
# module proxy. Source it; it defines functions only.

# k8s_pins prints a require line for each module scheduler/go.mod requires
# but ARTT's own: the versions the workspace builds with (go work sync
# writes them there). A Kubernetes build at the same versions and flags
# shares the build cache with the workspace's (client-go, apimachinery,
# the scheduler's tree) where, at the older versions Kubernetes pins, every
# package that imports golang.org/x/sys or protobuf was compiled twice.
k8s_pins() {
  local gomod
  gomod="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scheduler/go.mod"
  go mod edit -json "$gomod" | awk -F'"' '
    /"Require": \[/ { inside = 1; next }
    inside && /^\t\]/ { inside = 0 }
    inside && /"Path":/ { path = $4 }
    inside && /"Version":/ && path !~ /^github\.com\/artt-dev\// { print "require " path " " $4 }'
}

# k8s_module DIR K8S_VERSION IMPORT... writes a throwaway module in DIR that
# requires k8s.io/kubernetes and every staging module its go.mod replaces
# (the proxy does not serve k8s.io/sample-*), and the workspace's versions of
# the rest (k8s_pins), imports the given packages, and tidies it.
k8s_module() {
  local dir=$1 version=$2
  shift 2
  local staging_version="v0${version#v1}" # v1.37.2 → v0.37.2
  local staging="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api cri-client
    cri-streaming csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator
    kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission
    streaming"
  mkdir -p "$dir"
  {
    echo "module artt.local/k8sbuild"
    echo
    echo "go 1.26"
    echo
    echo "require k8s.io/kubernetes $version"
    for m in $staging; do echo "require k8s.io/$m $staging_version"; done
    # Kubernetes' own modules stay at the version asked for.
    k8s_pins | grep -v -E "^require k8s\.io/(kubernetes|$(echo $staging | tr " " "|")) "
    for m in $staging; do echo "replace k8s.io/$m => k8s.io/$m $staging_version"; done
  } > "$dir/go.mod"
  {
    printf 'package k8sbuild\n\nimport (\n'
    for p in "$@"; do printf '\t_ "%s"\n' "$p"; done
    printf ')\n'
  } > "$dir/deps.go"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy >/dev/null)
}

# k8s_ldflags K8S_VERSION prints the -X flags that give a build its real
# version: a plain build reports v0.0.0-master+$Format:%H$, and clients
# (KEDA among them) read the server's version.
k8s_ldflags() {
  local version=$1 minor pkg flags=""
  minor="${version#v1.}"; minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags="$flags -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "$flags"
}

# Shared by the build scripts: how to build Kubernetes commands from the Go
# module proxy. Source it; it defines functions only.

# k8s_module DIR K8S_VERSION IMPORT... writes a throwaway module in DIR that
# requires k8s.io/kubernetes and every staging module its go.mod replaces
# (the proxy does not serve k8s.io/sample-*), imports the given packages, and
# tidies it.
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

package testcluster

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ControlPlaneOptions says how to start a test's kube-apiserver and etcd.
type ControlPlaneOptions struct {
	// Assets holds the kube-apiserver and etcd binaries; "" reads
	// KUBEBUILDER_ASSETS, which hack/build-test-binaries.sh prints.
	Assets string
	// CRDs are files or directories of CustomResourceDefinitions, installed
	// before StartControlPlane returns; a missing one is an error.
	CRDs []string
	// Dir, when set, receives kube-apiserver.log and etcd.log, which are
	// discarded otherwise.
	Dir string
	// Aggregation makes kube-apiserver the aggregator KEDA's metrics
	// adapter trusts (EnableAggregation), its certificates under Dir.
	Aggregation bool
	// Args are kube-apiserver flags beyond envtest's.
	Args map[string]string
}

// ControlPlane is a running kube-apiserver and etcd.
type ControlPlane struct {
	// Env is envtest's environment, to add users to (AdminKubeconfig).
	Env *envtest.Environment
	// Config reaches kube-apiserver as an administrator.
	Config *rest.Config
	logs   []*os.File
}

// StartControlPlane starts envtest's kube-apiserver and etcd as o says.
// On an error nothing is left running.
func StartControlPlane(o ControlPlaneOptions) (*ControlPlane, error) {
	if o.Aggregation && o.Dir == "" {
		return nil, fmt.Errorf("aggregation needs a directory for its certificates")
	}
	cp := &ControlPlane{Env: &envtest.Environment{
		BinaryAssetsDirectory: o.Assets,
		CRDInstallOptions:     envtest.CRDInstallOptions{Paths: o.CRDs, ErrorIfPathMissing: true},
	}}
	api := cp.Env.ControlPlane.GetAPIServer()
	for name, value := range o.Args {
		api.Configure().Set(name, value)
	}
	if o.Aggregation {
		if err := EnableAggregation(api, o.Dir); err != nil {
			return nil, err
		}
	}
	if o.Dir != "" {
		apiLog, err := cp.openLog(o.Dir, "kube-apiserver")
		if err != nil {
			return nil, err
		}
		etcdLog, err := cp.openLog(o.Dir, "etcd")
		if err != nil {
			cp.closeLogs()
			return nil, err
		}
		api.Out, api.Err = apiLog, apiLog
		cp.Env.ControlPlane.Etcd = &envtest.Etcd{Out: etcdLog, Err: etcdLog}
	}
	var err error
	if cp.Config, err = cp.Env.Start(); err != nil {
		_ = cp.Env.Stop()
		cp.closeLogs()
		return nil, fmt.Errorf("envtest: %w", err)
	}
	return cp, nil
}

// Stop stops kube-apiserver and etcd.
func (cp *ControlPlane) Stop() {
	_ = cp.Env.Stop()
	cp.closeLogs()
}

func (cp *ControlPlane) openLog(dir, name string) (io.Writer, error) {
	f, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cp.logs = append(cp.logs, f)
	return f, nil
}

func (cp *ControlPlane) closeLogs() {
	for _, f := range cp.logs {
		f.Close()
	}
	cp.logs = nil
}

// IstioCRDs is the file of Istio's CRDs in the istio.io/api module the
// test's module requires.
func IstioCRDs() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "istio.io/api").Output()
	if err != nil {
		return "", fmt.Errorf("locate istio.io/api: %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "kubernetes", "customresourcedefinitions.gen.yaml"), nil
}

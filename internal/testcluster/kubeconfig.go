package testcluster

import (
	"os"
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// AdminKubeconfig adds a user named name in system:masters to envtest's
// control plane and writes its kubeconfig to dir/kubeconfig, for the
// processes a test starts and for kubectl; it returns the file's path.
func AdminKubeconfig(env *envtest.Environment, dir, name string) (string, error) {
	admin, err := env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return "", err
	}
	kc, err := admin.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, os.WriteFile(path, kc, 0o600)
}

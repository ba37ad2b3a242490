package controller

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// TestDeployManifestsApplyCleanly builds every kustomization under deploy/
// and applies each object to the real apiserver with a server-side dry run
// (namespaces for real, so namespaced objects have somewhere to go).
func TestDeployManifestsApplyCleanly(t *testing.T) {
	needCluster(t)
	root, err := filepath.Abs(filepath.Join("..", "..", "deploy")) // go test runs in the package's directory
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{".", "scheduler", "examples/node-labeller", "examples/node-probes", "examples/scaler-mtls"} {
		t.Run(dir, func(t *testing.T) {
			m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root, dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range m.Resources() {
				obj := &unstructured.Unstructured{}
				data, err := r.Map()
				if err != nil {
					t.Fatal(err)
				}
				obj.SetUnstructuredContent(data)
				opts := []client.PatchOption{client.ForceOwnership, client.FieldOwner("deploy-test"), client.FieldValidation("Strict")}
				if obj.GetKind() != "Namespace" {
					opts = append(opts, client.DryRunAll)
				}
				if err := k8s.Patch(testScope, obj, client.Apply, opts...); err != nil {
					t.Errorf("%s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				}
			}
		})
	}
}

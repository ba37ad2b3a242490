package kedatest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/artt-dev/artt/internal/promtest"
)

// TestExampleScaledObjectsAreValidForKEDA applies the ScaledObject and
// TriggerAuthentication examples under deploy/examples to a real apiserver
// with KEDA v2.21's own CRDs installed (server-side dry run), so the
// examples users copy are accepted by KEDA's schema.
func TestExampleScaledObjectsAreValidForKEDA(t *testing.T) {
	env, c := startKEDAAPIServer(t)
	defer env.Stop()
	ctx := context.Background()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop"}}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	examples := []string{"../../deploy/examples/scaledobject.yaml", "../../deploy/examples/scaler-mtls/triggerauthentication.yaml"}
	applied := 0
	for _, file := range examples {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			if err := c.Patch(ctx, obj, client.Apply, client.FieldOwner("example-test"), client.DryRunAll, client.FieldValidation("Strict")); err != nil {
				t.Errorf("%s: %s %s: %v", file, obj.GetKind(), obj.GetName(), err)
			}
			applied++
		}
	}
	if applied < 3 {
		t.Errorf("applied %d objects, want the ScaledObjects and the TriggerAuthentication", applied)
	}
}

// startKEDAAPIServer starts envtest's kube-apiserver with KEDA v2.21's own
// CRDs and returns it with a client (skipping, or failing when components
// are required, without KUBEBUILDER_ASSETS).
func startKEDAAPIServer(t *testing.T) (*envtest.Environment, client.Client) {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if promtest.Required() {
			t.Fatal("KUBEBUILDER_ASSETS is required but not set (hack/build-test-binaries.sh)")
		}
		t.Skip("KUBEBUILDER_ASSETS not set (hack/build-test-binaries.sh prints it)")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kedacore/keda/v2").Output()
	if err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases")
	env := &envtest.Environment{CRDInstallOptions: envtest.CRDInstallOptions{Paths: []string{crds}, ErrorIfPathMissing: true}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		_ = env.Stop()
		t.Fatal(err)
	}
	return env, c
}

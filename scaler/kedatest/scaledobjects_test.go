package kedatest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kedacore/keda/v2/pkg/scalers"
)

// With --check-scaledobjects, artt-scaler answers KEDA's client for a
// ScaledObject that exists and sends its external trigger here, and refuses
// a call that claims a ScaledObject that does not exist, or one whose
// trigger goes to another scaler, before reading any series.
func TestCheckedScalerAnswersOnlyForItsScaledObjects(t *testing.T) {
	needComponents(t)
	env, c := startKEDAAPIServer(t)
	defer env.Stop()
	admin, err := env.AddUser(envtest.User{Name: "artt-scaler", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	checked, err := startScaler(scalerBin, workDir, "checked", "--check-scaledobjects", "--kubeconfig="+path)
	if err != nil {
		t.Fatal(err)
	}
	defer checked.stop()

	ctx := context.Background()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop"}}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for name, address := range map[string]string{"web": checked.grpc, "elsewhere": "other-scaler.keda:6000"} {
		so := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
			"metadata": map[string]any{"name": name, "namespace": "shop"},
			"spec": map[string]any{
				"scaleTargetRef": map[string]any{"name": "web"},
				"triggers":       []any{map[string]any{"type": "external", "metadata": map[string]any{"scalerAddress": address, "workload": "web"}}},
			},
		}}
		if err := c.Create(ctx, so); err != nil {
			t.Fatal(err)
		}
	}

	cases := []struct {
		name, scaledObject, refusal string
	}{
		{"its own ScaledObject", "web", ""},
		{"a ScaledObject that does not exist", "ghost", "no ScaledObject shop/ghost"},
		{"a ScaledObject whose trigger goes elsewhere", "elsewhere", "has no external trigger with scalerAddress"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := kedaConfig(checked.grpc, nil, nil, v2.ValueMetricType)
			cfg.ScalableObjectName = tc.scaledObject
			s, err := scalers.NewExternalScaler(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(ctx)
			var values []any
			got, _, err := s.GetMetricsAndActivity(ctx, "s0-artt-load")
			for _, v := range got {
				values = append(values, v.Value.AsApproximateFloat64())
			}
			switch {
			case tc.refusal == "" && (err != nil || len(got) != 1):
				t.Errorf("refused its own ScaledObject: %v %v", values, err)
			case tc.refusal != "" && (err == nil || !strings.Contains(err.Error(), "PermissionDenied") || !strings.Contains(err.Error(), tc.refusal)):
				t.Errorf("answered %v, or refused without PermissionDenied and %q: %v", values, tc.refusal, err)
			}
		})
	}
}

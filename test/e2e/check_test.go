package e2e_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// artt-scaler check reads a ScaledObject from the cluster and checks each
// external trigger against Prometheus as artt-scaler would answer KEDA for
// it: the example passes, saying what KEDA would be served, and each broken
// copy gets the exact lines that name its problems, every one at once. The
// copies scale Deployments that do not exist, so KEDA acts on none of them.
func TestScalerCheckNamesEachProblemAndPassesTheExample(t *testing.T) {
	needCluster(t)
	example := exampleScaledObject(t)
	// The first trigger's metadata, itself (NestedSlice returns a copy).
	trigger := func(so *unstructured.Unstructured) map[string]any {
		triggers := so.Object["spec"].(map[string]any)["triggers"].([]any)
		return triggers[0].(map[string]any)["metadata"].(map[string]any)
	}
	variant := func(name string, edit func(so *unstructured.Unstructured)) {
		so := example.DeepCopy()
		so.SetName(name)
		if err := unstructured.SetNestedField(so.Object, name+"-target", "spec", "scaleTargetRef", "name"); err != nil {
			t.Fatal(err)
		}
		edit(so)
		if err := k8s.Create(testScope, so); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(testScope, so) })
	}
	variant("check-good", func(*unstructured.Unstructured) {})
	variant("check-typo", func(so *unstructured.Unstructured) {
		md := trigger(so)
		md["minThreshhold"] = md["minThreshold"]
		delete(md, "minThreshold")
		md["metricForm"] = "cpu"
	})
	variant("check-ghost", func(so *unstructured.Unstructured) { trigger(so)["workload"] = "ghost" })
	variant("check-cpu", func(so *unstructured.Unstructured) {
		cpu := []any{map[string]any{"type": "cpu", "metricType": "Utilization", "metadata": map[string]any{"value": "60"}}}
		if err := unstructured.SetNestedSlice(so.Object, cpu, "spec", "triggers"); err != nil {
			t.Fatal(err)
		}
	})

	const fix = "fix the trigger's metadata (docs/scaler.md lists every key)"
	for _, c := range []struct {
		name  string
		code  int
		lines int // printed, the wanted ones and, when the trigger evaluates, its own
		want  []string
	}{
		{"check-good", 0, 2, []string{"ok: artt-scaler answers KEDA for scaledobject shop/check-good"}},
		{"check-typo", 1, 2, []string{
			`error: scaledobject shop/check-typo trigger 0: metadata "minThreshhold" = "50": unknown key; see docs/scaler.md for the keys artt-scaler reads; ` + fix,
			`error: scaledobject shop/check-typo trigger 0: metadata "metricForm" = "cpu": must be "normalized", "utilization" or "pods"; ` + fix,
		}},
		{"check-ghost", 1, 5, []string{
			"error: scaledobject shop/check-ghost trigger 0: the cpuUsage query (cpuUsageQuery) returns nothing for workload ghost in namespace shop; scrape cAdvisor's container_cpu_usage_seconds_total and kube-state-metrics' kube_pod_status_ready, with namespace and pod labels",
			"error: scaledobject shop/check-ghost trigger 0: the cpuRequest query (cpuRequestQuery) returns nothing for workload ghost in namespace shop; scrape kube-state-metrics, and give the workload's containers CPU requests: without them there is no utilisation",
			"error: scaledobject shop/check-ghost trigger 0: the requestRate query (requestRateQuery) returns nothing for workload ghost in namespace shop; scrape the sidecars' istio_requests_total (reporter=destination), or set workload to the name Istio reports for the pods",
			`error: scaledobject shop/check-ghost trigger 0: the arrivalRate query (arrivalRateQuery) returns nothing for workload ghost in namespace shop; add http downstream_rq_total to the sidecars' proxyStatsMatcher (docs/install.md) and scrape it, or set offeredLoad: "false"`,
			"error: scaledobject shop/check-ghost trigger 0: the podCPURequest query (podCPURequestQuery) returns nothing for workload ghost in namespace shop; scrape kube-state-metrics, and give the workload's containers CPU requests",
		}},
		{"check-cpu", 1, 1, []string{"error: scaledobject shop/check-cpu: it has no external or external-push trigger, so KEDA never calls artt-scaler for it; add a trigger of type external with scalerAddress set to artt-scaler's service (deploy/examples/scaledobject.yaml)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := scalerCheck(t, c.name)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != c.code {
				t.Errorf("exit code %d, want %d; it printed:\n%s", code, c.code, out)
			}
			for _, w := range c.want {
				if !slices.Contains(lines, w) {
					t.Errorf("it does not say\n  %s\nit says:\n  %s", w, strings.Join(lines, "\n  "))
				}
			}
			if len(lines) != c.lines {
				t.Errorf("%d lines, want %d:\n%s", len(lines), c.lines, out)
			}
			if c.code == 0 && !strings.HasPrefix(lines[0], "ok: scaledobject shop/check-good trigger 0: utilisation ") {
				t.Errorf("no line says what KEDA would be served: %q", lines[0])
			}
		})
	}
	if out, code := scalerCheck(t, "nothere"); code != 2 || !strings.Contains(out, "artt-scaler check: scaledobject shop/nothere: not found") {
		t.Errorf("a missing ScaledObject: exit code %d, output %q", code, out)
	}
}

// exampleScaledObject is deploy/examples/scaledobject.yaml with this
// cluster's addresses (scaledObject), parsed.
func exampleScaledObject(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(scaledObject(t))
	if err != nil {
		t.Fatal(err)
	}
	so := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &so.Object); err != nil {
		t.Fatal(err)
	}
	return so
}

// scalerCheck runs `artt-scaler check` for shop/name with artt-scaler's own
// settings here, and returns its output and exit code.
func scalerCheck(t *testing.T, name string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(work, "artt-scaler"), "check", "--kubeconfig="+kubeconfig,
		"--namespace=shop", "--scaledobject="+name, "--prometheus-address="+prom.URL)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

package charttest

import (
	"context"
	"os"
	"reflect"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/release"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"

	"github.com/artt-dev/artt/internal/testcluster"
)

// startAPIServer starts envtest's kube-apiserver and etcd and returns a
// kubeconfig file for a cluster admin and a dynamic client.
func startAPIServer(t *testing.T) (string, *dynamic.DynamicClient) {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if os.Getenv("ARTT_REQUIRE_COMPONENTS") != "" {
			t.Fatal("KUBEBUILDER_ASSETS is not set: build kube-apiserver and etcd with hack/build-test-binaries.sh")
		}
		t.Skip("KUBEBUILDER_ASSETS is not set (hack/build-test-binaries.sh builds kube-apiserver and etcd)")
	}
	cp, err := testcluster.StartControlPlane(testcluster.ControlPlaneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	path, err := testcluster.AdminKubeconfig(cp.Env, t.TempDir(), "chart-admin")
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	return path, dyn
}

// helmConfig is what `helm --kubeconfig path -n namespace` acts with.
func helmConfig(t *testing.T, kubeconfig string) *action.Configuration {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	ns := namespace
	flags.Namespace = &ns
	cfg := new(action.Configuration)
	if err := cfg.Init(flags, namespace, "secret", t.Logf); err != nil {
		t.Fatal(err)
	}
	return cfg
}

var resources = map[string]schema.GroupVersionResource{
	"ServiceAccount":      {Version: "v1", Resource: "serviceaccounts"},
	"Service":             {Version: "v1", Resource: "services"},
	"ConfigMap":           {Version: "v1", Resource: "configmaps"},
	"Deployment":          {Group: "apps", Version: "v1", Resource: "deployments"},
	"ClusterRole":         {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
	"ClusterRoleBinding":  {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
	"Role":                {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"RoleBinding":         {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"NetworkPolicy":       {Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"},
	"PodDisruptionBudget": {Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
}

// get reads the rendered object o back from the API server.
func get(t *testing.T, dyn *dynamic.DynamicClient, o object) (*unstructured.Unstructured, error) {
	t.Helper()
	gvr, ok := resources[o["kind"].(string)]
	if !ok {
		t.Fatalf("no resource known for kind %s", o["kind"])
	}
	md := o["metadata"].(object)
	name := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" {
		return dyn.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	}
	return dyn.Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
}

// TestInstallsIntoAKubeAPIServer installs the chart (with artt-scheduler)
// as `helm install --create-namespace` does, with Helm's validation of
// every object against the server's schema, then upgrades and uninstalls
// it. The monitoring objects are left out: their PrometheusRule kind needs
// the Prometheus Operator's CRDs, which envtest does not have.
func TestInstallsIntoAKubeAPIServer(t *testing.T) {
	kubeconfig, dyn := startAPIServer(t)
	cfg := helmConfig(t, kubeconfig)
	values := map[string]any{"scheduler": map[string]any{"enabled": true}}

	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.CreateNamespace = "artt", namespace, true
	rel, err := install.Run(loadChart(t), values)
	if err != nil {
		t.Fatalf("helm install: %v", err)
	}
	if rel.Info.Status != release.StatusDeployed {
		t.Fatalf("release status %s, want deployed", rel.Info.Status)
	}
	rendered := render(t, values)
	for k, o := range rendered {
		if _, err := get(t, dyn, o); err != nil {
			t.Errorf("%s rendered but not in the API server after install: %v", k, err)
		}
	}
	t.Logf("installed %d objects", len(rendered))
	checkNetworkPolicy(t, dyn, rendered["NetworkPolicy artt-system/artt-scaler"])

	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = namespace
	if _, err := upgrade.Run("artt", loadChart(t), map[string]any{"scheduler": map[string]any{"enabled": true}, "scaler": map[string]any{"replicas": 3}}); err != nil {
		t.Fatalf("helm upgrade: %v", err)
	}
	d, err := get(t, dyn, rendered["Deployment artt-system/artt-scaler"])
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); r != 3 {
		t.Errorf("artt-scaler replicas after helm upgrade --set scaler.replicas=3: %d", r)
	}

	if _, err := action.NewUninstall(cfg).Run("artt"); err != nil {
		t.Fatalf("helm uninstall: %v", err)
	}
	for k, o := range rendered {
		u, err := get(t, dyn, o)
		// envtest runs no garbage collector or namespace controller, so a
		// deleted object may linger only with its deletion timestamp set.
		if err == nil && u.GetDeletionTimestamp() == nil {
			t.Errorf("%s is still there after helm uninstall", k)
		}
	}
}

// checkNetworkPolicy reads artt-scaler's NetworkPolicy back from the API
// server and checks that its gRPC port admits only the chart's KEDA
// selectors and its metrics port only the Prometheus ones.
func checkNetworkPolicy(t *testing.T, dyn *dynamic.DynamicClient, o object) {
	t.Helper()
	if o == nil {
		t.Fatal("the chart renders no NetworkPolicy for artt-scaler")
	}
	u, err := get(t, dyn, o)
	if err != nil {
		t.Fatal(err)
	}
	ingress, _, _ := unstructured.NestedSlice(u.Object, "spec", "ingress")
	peers := func(ns string, apps ...object) []any {
		var out []any
		for _, pods := range apps {
			out = append(out, object{"namespaceSelector": object{"matchLabels": object{"kubernetes.io/metadata.name": ns}}, "podSelector": object{"matchLabels": pods}})
		}
		return out
	}
	want := []struct {
		port string
		from []any
	}{
		{"grpc", peers("keda", object{"app": "keda-operator"}, object{"app": "keda-operator-metrics-apiserver"})},
		{"http", peers("monitoring", object{"app.kubernetes.io/name": "prometheus"})},
	}
	if len(ingress) != len(want) {
		t.Fatalf("%d ingress rules, want %d: %v", len(ingress), len(want), ingress)
	}
	for i, w := range want {
		rule := ingress[i].(object)
		port, _, _ := unstructured.NestedString(rule["ports"].([]any)[0].(object), "port")
		if port != w.port || !reflect.DeepEqual(rule["from"], w.from) {
			t.Errorf("ingress rule %d admits %v to port %q; want %v to %q", i, rule["from"], port, w.from, w.port)
		}
	}
}

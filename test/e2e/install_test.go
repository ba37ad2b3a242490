package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/doccmd"
	"github.com/artt-dev/artt/internal/testcluster"
)

// installNotRun are the commands of docs/install.md this test cannot run,
// by prefix, with the reason; any other command it meets must be one it
// runs.
var installNotRun = []struct{ prefix, why string }{
	{"helm install ", "charts/charttest installs the chart on envtest's kube-apiserver with Helm's SDK; here, what it leaves (the namespace artt-system) is made first"},
	{"kubectl exec ", "needs a kubelet running artt-traffic's and artt-scaler's pods; the preflight and check they run are tested in traffic/controller and TestScalerCheckNamesEachProblemAndPassesTheExample"},
	{"make images", "deploy/images' tests build the same images (make test-images)"},
	{"docker ", "needs a container engine"},
	{"skopeo ", "needs a registry"},
}

// docs/install.md's commands, typed as its reader types them (from the
// repository's root, kubectl on the PATH, the kubeconfig in KUBECONFIG), on
// a kube-apiserver of their own holding what the reader has before the
// first: KEDA's and Istio's CRDs, a namespace shop with a Deployment web,
// two nodes worker-1 and worker-2, and the namespace artt-system that helm
// install makes. Each must succeed, and leave what the document says it
// does.
func TestInstallCommandsRunOnAKubeAPIServer(t *testing.T) {
	needCluster(t)
	dir := t.TempDir()
	istioCRDs, err := testcluster.IstioCRDs()
	if err != nil {
		t.Fatal(err)
	}
	cp, err := testcluster.StartControlPlane(testcluster.ControlPlaneOptions{CRDs: []string{testcluster.KEDACRDs(assets), istioCRDs}})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	c, err := client.New(cp.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := testcluster.AdminKubeconfig(cp.Env, dir, "reader")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	readersCluster(ctx, t, c)

	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(root, "docs", "install.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkout := readersCheckout(t, root)
	ran := 0
	for _, command := range doccmd.Commands(string(text)) {
		if why := notRunWhy(command); why != "" {
			t.Logf("not run: %s: %s", command, why)
			continue
		}
		if !strings.HasPrefix(command, "kubectl ") && !strings.HasPrefix(command, "hack/") {
			t.Errorf("docs/install.md shows %q, which this test neither runs nor says why it cannot", command)
			continue
		}
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir = checkout
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kc, "PATH="+assets+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", command, err, out)
			continue
		}
		ran++
		t.Logf("ran: %s", command)
	}
	if ran < 6 {
		t.Errorf("ran %d of docs/install.md's commands; its sh blocks were not found", ran)
	}
	checkInstallLeft(ctx, t, c, checkout)
}

// readersCheckout makes a directory where the reader's commands see the
// repository's deploy/ and hack/ and write their files (the scrape jobs)
// without touching the checkout.
func readersCheckout(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"deploy", "hack"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func notRunWhy(command string) string {
	for _, n := range installNotRun {
		if strings.HasPrefix(command, n.prefix) {
			return n.why
		}
	}
	return ""
}

// readersCluster creates what docs/install.md's reader has before its first
// command.
func readersCluster(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	for _, ns := range []string{"shop", "artt-system"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	labels := map[string]string{"app": "web"}
	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	if err := c.Create(ctx, web); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"worker-1", "worker-2"} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := c.Create(ctx, node); err != nil {
			t.Fatal(err)
		}
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.0.%d", i+1)}}
		if err := c.Status().Update(ctx, node); err != nil {
			t.Fatal(err)
		}
	}
}

// checkInstallLeft checks what each command of docs/install.md says it
// does.
func checkInstallLeft(ctx context.Context, t *testing.T, c client.Client, checkout string) {
	t.Helper()
	var web appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, &web); err != nil || web.Labels["traffic.artt.dev/managed"] != "true" {
		t.Errorf("Deployment shop/web labels %v (%v); want traffic.artt.dev/managed=true", web.Labels, err)
	}
	var node corev1.Node
	if err := c.Get(ctx, client.ObjectKey{Name: "worker-1"}, &node); err != nil || node.Labels["topology.istio.io/subzone"] != "worker-1" {
		t.Errorf("node worker-1 labels %v (%v); want topology.istio.io/subzone=worker-1", node.Labels, err)
	}
	var probes appsv1.DaemonSet
	if err := c.Get(ctx, client.ObjectKey{Namespace: "artt-system", Name: "artt-node-probe"}, &probes); err != nil {
		t.Errorf("the node probes' DaemonSet artt-system/artt-node-probe: %v", err)
	}
	so := &unstructured.Unstructured{}
	so.SetGroupVersionKind(schema.GroupVersionKind{Group: "keda.sh", Version: "v1alpha1", Kind: "ScaledObject"})
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, so); err != nil {
		t.Errorf("the example ScaledObject shop/web: %v", err)
	} else if triggers, _, _ := unstructured.NestedSlice(so.Object, "spec", "triggers"); len(triggers) == 0 || triggers[0].(map[string]any)["type"] != "external" {
		t.Errorf("the example ScaledObject's triggers %v; want an external trigger first", triggers)
	}
	jobs, err := os.ReadFile(filepath.Join(checkout, "artt-node-probes.yml"))
	if err != nil {
		t.Fatalf("the scrape jobs hack/node-probe-scrape-config.sh writes: %v", err)
	}
	for _, want := range []string{"job_name: artt-node-probe-worker-1", `targets: ["10.0.0.2:10250"]`, `labels: {source_node: "worker-1", target_node: "worker-2"}`, `replacement: "10.0.0.1:9115"`} {
		if !strings.Contains(string(jobs), want) {
			t.Errorf("the scrape jobs lack %q:\n%s", want, jobs)
		}
	}
}

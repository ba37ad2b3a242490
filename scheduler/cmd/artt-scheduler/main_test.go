package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/placement/larp"
	"github.com/artt-dev/artt/placement/topology"
)

// The built artt-scheduler, run against envtest's kube-apiserver with the
// repository's scheduler configuration, binds an opted-in application's
// pods where LARP plans them, never on a node without room, and leaves the
// default scheduler's pods alone.

var (
	cs     *kubernetes.Clientset
	binary string
	runDir string
	env    *envtest.Environment
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if os.Getenv("ARTT_REQUIRE_COMPONENTS") != "" {
			fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS is required (hack/build-test-binaries.sh)")
			return 1
		}
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS not set: skipping artt-scheduler's tests (hack/build-test-binaries.sh)")
		return 0
	}
	var err error
	runDir, err = os.MkdirTemp("", "artt-scheduler-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(runDir)
	binary = filepath.Join(runDir, "artt-scheduler")
	start := time.Now()
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build artt-scheduler: %v\n%s", err, out)
		return 1
	}
	fmt.Fprintf(os.Stderr, "built artt-scheduler in %s\n", time.Since(start).Round(time.Second))
	cp, err := testcluster.StartControlPlane(testcluster.ControlPlaneOptions{Dir: runDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cp.Stop()
	env = cp.Env
	cs = kubernetes.NewForConfigOrDie(cp.Config)
	return m.Run()
}

// startScheduler runs the binary with the repository's configuration,
// pointed at envtest and without leader election.
func startScheduler(t *testing.T) *bytes.Buffer {
	t.Helper()
	kcPath, err := testcluster.AdminKubeconfig(env, t.TempDir(), "artt-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile("../../../deploy/scheduler/scheduler-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var config map[string]any
	if err := yaml.Unmarshal(shipped, &config); err != nil {
		t.Fatal(err)
	}
	config["clientConnection"] = map[string]any{"kubeconfig": kcPath}
	config["leaderElection"] = map[string]any{"leaderElect": false}
	data, err := yaml.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, "--config="+cfgPath, "--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--authentication-kubeconfig="+kcPath, "--authorization-kubeconfig="+kcPath, "--authentication-skip-lookup", "--v=2")
	cmd.Env = append(os.Environ(), "ARTT_TOPOLOGY_CONFIGMAP=artt-system/artt-topology")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("artt-scheduler's log:\n%s", log.String())
		}
	})
	return &log
}

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// cluster: n1–n2 and n3–n4 are 1 ms apart, every other pair 10 ms; n4 has
// half a core, too little for a one-core pod.
var nodeCPU = map[string]string{"n1": "4", "n2": "4", "n3": "4", "n4": "500m"}

func delay(a, b string) float64 {
	if (a == "n1" && b == "n2") || (a == "n2" && b == "n1") || (a == "n3" && b == "n4") || (a == "n4" && b == "n3") {
		return 1
	}
	return 10
}

func createCluster(t *testing.T) topology.Topology {
	t.Helper()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range nodeCPU {
			if !yield(n) {
				return
			}
		}
	}) {
		n, err := cs.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}, metav1.CreateOptions{})
		must(t, err)
		n.Status.Capacity = v1.ResourceList{v1.ResourceCPU: resource.MustParse(nodeCPU[name]), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
		n.Status.Allocatable = n.Status.Capacity
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
		n, err = cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		must(t, err)
		// The apiserver taints a new node not-ready until its kubelet
		// reports; no kubelet runs here, so the test clears the taint as
		// the node lifecycle controller would.
		n.Spec.Taints = nil
		_, err = cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		must(t, err)
	}
	var top topology.Topology
	for a := range nodeCPU {
		for b := range nodeCPU {
			if a != b {
				top.Delays = append(top.Delays, graph.Delay{From: a, To: b, Ms: delay(a, b)})
			}
		}
	}
	top.Calls = []topology.Call{{From: "shop/web", To: "shop/api"}}
	for _, ns := range []string{"artt-system", "shop"} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		must(t, err)
	}
	_, err := cs.CoreV1().ConfigMaps("artt-system").Create(ctx, &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "artt-topology"}, Data: top.Data()}, metav1.CreateOptions{})
	must(t, err)
	return top
}

// createDeployment creates a Deployment, its ReplicaSet and its pods, as
// the controllers would (none runs here), each pod asking for one core.
func createDeployment(t *testing.T, name string, replicas int32, schedulerName string) {
	t.Helper()
	yes := true
	spec := v1.PodSpec{SchedulerName: schedulerName, Containers: []v1.Container{{Name: "app", Image: "registry.invalid/" + name,
		Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("256Mi")}}}}}
	labels := map[string]string{"app": name}
	d, err := cs.AppsV1().Deployments("shop").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
	}, metav1.CreateOptions{})
	must(t, err)
	rs, err := cs.AppsV1().ReplicaSets("shop").Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-7d4f9", OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
	}, metav1.CreateOptions{})
	must(t, err)
	for i := range replicas {
		_, err := cs.CoreV1().Pods("shop").Create(ctx, &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-7d4f9-%d", name, i), Labels: labels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes}}},
			Spec: spec,
		}, metav1.CreateOptions{})
		must(t, err)
	}
}

func nodesOf(t *testing.T, app string) []string {
	t.Helper()
	pods, err := cs.CoreV1().Pods("shop").List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	must(t, err)
	var out []string
	for _, p := range pods.Items {
		out = append(out, p.Spec.NodeName)
	}
	slices.Sort(out)
	return out
}

func TestArttSchedulerBindsPodsWhereLARPPlansThem(t *testing.T) {
	log := startScheduler(t)
	top := createCluster(t)
	// Let the scheduler's informers see the nodes and the topology first:
	// a pod scheduled before them would be scored without a plan.
	time.Sleep(2 * time.Second)
	createDeployment(t, "web", 2, "artt-scheduler")
	createDeployment(t, "api", 2, "artt-scheduler")
	createDeployment(t, "batch", 1, "") // the default scheduler's, which is not running

	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		web, api := nodesOf(t, "web"), nodesOf(t, "api")
		if !slices.Contains(web, "") && !slices.Contains(api, "") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	web, api := nodesOf(t, "web"), nodesOf(t, "api")

	// The plan, from the core on the same inputs: two groups of one web and
	// one api pod (two cores each), on the closest pair of nodes with room.
	var p larp.Problem
	p.Components = []larp.Component{{Name: "shop/api", Replicas: 2, CPU: 1, Memory: 256 << 20}, {Name: "shop/web", Replicas: 2, CPU: 1, Memory: 256 << 20}}
	p.Calls = []graph.Call{{From: "shop/web", To: "shop/api", Rate: math.NaN()}}
	for n, c := range nodeCPU {
		q := resource.MustParse(c)
		p.Nodes = append(p.Nodes, larp.Node{Name: n, CPU: float64(q.MilliValue()) / 1000, Memory: 8 << 30})
	}
	p.Delays = top.Delays
	plan, err := larp.Greedy(p)
	must(t, err)
	var want []string
	for _, g := range plan.Groups {
		want = append(want, g.Node)
	}
	slices.Sort(want)
	if !slices.Equal(web, want) || !slices.Equal(api, want) {
		t.Errorf("web on %v, api on %v; want each on the planned nodes %v", web, api, want)
	}
	if !slices.Equal(want, []string{"n1", "n2"}) {
		t.Errorf("the plan chose %v, want n1 and n2 (n3–n4 is as close, but n4 has no room)", want)
	}
	for _, n := range append(web, api...) {
		if n == "n4" {
			t.Errorf("a pod was bound to n4, which has no room for it")
		}
	}
	if batch := nodesOf(t, "batch"); len(batch) != 1 || batch[0] != "" {
		t.Errorf("the default scheduler's pod was bound to %v by artt-scheduler", batch)
	}
	if !strings.Contains(log.String(), "ARTTPlacement") && testing.Verbose() {
		t.Logf("log does not mention the plugin:\n%s", log.String())
	}
}

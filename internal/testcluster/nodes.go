package testcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// The annotation of the nodes kwok manages.
const kwokKey, kwokValue = "kwok.x-k8s.io/node", "fake"

// KwokAnnotation is the annotations of a node for kwok to run.
func KwokAnnotation() map[string]string { return map[string]string{kwokKey: kwokValue} }

// StartKwok runs kwok (from assets, as hack/build-e2e-binaries.sh leaves it,
// with kwokctl's default stages) against the cluster of kubeconfig, as the
// kubelet of every node with KwokAnnotation: Ready heartbeats, pods Running
// and Ready, deleted pods removed. Its log is dir/kwok.log.
func StartKwok(ctx context.Context, dir, assets, kubeconfig string) (func(), error) {
	return StartProcess(ctx, dir, "kwok", filepath.Join(assets, "kwok"), nil,
		"--config="+filepath.Join(assets, "kwok-stages.yaml"), "--kubeconfig="+kubeconfig,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector="+kwokKey+"="+kwokValue,
		"--server-address="+FreeAddress(), "--cidr=10.0.0.1/16", "--node-ip=10.1.0.1")
}

// StartScheduler builds artt-scheduler from this checkout's scheduler
// module into dir and runs it against the cluster of kubeconfig, without
// leader election. With larp it runs deploy/scheduler's configuration (the
// artt-scheduler profile, ARTTPlacement on); without, kube-scheduler's
// default profile.
func StartScheduler(ctx context.Context, dir, kubeconfig string, larp bool) (func(), error) {
	root, err := RepoRoot()
	if err != nil {
		return func() {}, err
	}
	binary := filepath.Join(dir, "artt-scheduler")
	build := exec.Command("go", "build", "-o", binary, "./cmd/artt-scheduler")
	build.Dir = filepath.Join(root, "scheduler")
	if b, err := build.CombinedOutput(); err != nil {
		return func() {}, fmt.Errorf("go build artt-scheduler: %v\n%s", err, b)
	}
	config := map[string]any{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
	if larp {
		shipped, err := os.ReadFile(filepath.Join(root, "deploy", "scheduler", "scheduler-config.yaml"))
		if err != nil {
			return func() {}, err
		}
		if err := yaml.Unmarshal(shipped, &config); err != nil {
			return func() {}, err
		}
	}
	// A test's fleet is bound in one burst: past client-go's default 50
	// requests per second, the API server's own limits govern.
	config["clientConnection"] = map[string]any{"kubeconfig": kubeconfig, "qps": 500, "burst": 1000}
	config["leaderElection"] = map[string]any{"leaderElect": false}
	data, err := yaml.Marshal(config)
	if err != nil {
		return func() {}, err
	}
	path := filepath.Join(dir, "scheduler-config.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return func() {}, err
	}
	return StartProcess(ctx, dir, "artt-scheduler", binary, []string{"ARTT_TOPOLOGY_CONFIGMAP=artt-system/artt-topology"},
		"--config="+path, "--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", FreePort()),
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig, "--authentication-skip-lookup", "--v=2")
}

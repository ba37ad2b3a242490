package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/test/e2e"
)

// The cluster every test of the package shares.
var (
	cfg        *rest.Config
	k8s        client.Client
	kubeconfig string // an admin kubeconfig for the processes and kubectl
	assets     string // kube-controller-manager, kubectl, keda-operator, keda-adapter
	work       string // logs, certificates, binaries
	prom       *promtest.Server
	app        *e2e.Workload
	scalerGRPC string // artt-scaler's gRPC address
	scalerHTTP string // artt-scaler's /metrics address
	testScope  context.Context
)

// harness starts the cluster once for every test of the package.
var harness = &testcluster.Main{
	Name: "e2e",
	Needs: []testcluster.Need{
		{Env: "ARTT_E2E_ASSETS", Hint: "export it to the directory hack/build-e2e-binaries.sh prints", AskedFor: true},
		{Env: "KUBEBUILDER_ASSETS", Hint: "hack/build-test-binaries.sh"},
	},
	Start: func(ctx context.Context, dir string) (func(), error) {
		testScope, work, assets = ctx, dir, os.Getenv("ARTT_E2E_ASSETS")
		return startCluster(ctx)
	},
}

func TestMain(m *testing.M) { os.Exit(harness.Run(m)) }

func needCluster(t *testing.T) {
	t.Helper()
	if harness.SkipWhy != "" {
		t.Skip("end-to-end components missing: " + harness.SkipWhy)
	}
}

// startCluster starts, in order: kube-apiserver and etcd (envtest, with the
// aggregation layer's front-proxy certificates), kube-controller-manager,
// kwok and artt-scheduler, Prometheus scraping the workload's exporter, artt-scaler, KEDA's operator
// and metrics adapter, and the APIService that routes external metrics to
// the adapter. It returns a function that stops them all.
func startCluster(ctx context.Context) (func(), error) {
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	istioCRDs, err := testcluster.IstioCRDs()
	if err != nil {
		return stopAll, err
	}
	cp, err := testcluster.StartControlPlane(testcluster.ControlPlaneOptions{
		CRDs: []string{testcluster.KEDACRDs(assets), istioCRDs}, Dir: work, Aggregation: true,
	})
	if err != nil {
		return stopAll, err
	}
	stops = append(stops, cp.Stop)
	cfg = cp.Config
	if k8s, err = client.New(cfg, client.Options{}); err != nil {
		return stopAll, err
	}
	if kubeconfig, err = testcluster.AdminKubeconfig(cp.Env, work, "admin"); err != nil {
		return stopAll, err
	}
	for _, ns := range []string{"shop", "artt-system"} {
		if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return stopAll, err
		}
	}

	kcm, err := startProcess(ctx, "kube-controller-manager", filepath.Join(assets, "kube-controller-manager"), nil,
		"--kubeconfig="+kubeconfig, "--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig,
		// The node lifecycle controller lifts the not-ready taint the API
		// server puts on a new node once kwok reports it Ready.
		"--controllers=deployment-controller,replicaset-controller,horizontal-pod-autoscaler-controller,garbage-collector-controller,node-lifecycle-controller",
		"--leader-elect=false", "--secure-port=0", "--horizontal-pod-autoscaler-sync-period=1s",
		"--horizontal-pod-autoscaler-initial-readiness-delay=1s", "--horizontal-pod-autoscaler-cpu-initialization-period=1s")
	if err != nil {
		return stopAll, err
	}
	stops = append(stops, kcm)

	stopNodes, err := startNodesAndScheduler(ctx)
	stops = append(stops, stopNodes)
	if err != nil {
		return stopAll, err
	}
	if app, err = e2e.NewWorkload(ctx, k8s); err != nil {
		return stopAll, err
	}
	var stopProm func()
	if prom, stopProm, err = promtest.StartWithExporter(work, app, time.Second, `istio_requests_total{destination_workload="web"}`, 3); err != nil {
		return stopAll, fmt.Errorf("prometheus: %w", err)
	}
	stops = append(stops, stopProm)

	scaler, err := build("artt-scaler")
	if err != nil {
		return stopAll, err
	}
	traffic, err := build("artt-traffic")
	if err != nil {
		return stopAll, err
	}
	// The exporter serves no node-to-node delays, so a table would save no
	// network time and artt-traffic would rightly leave web to Envoy's
	// least-request; --leave-to-envoy=false keeps the table, whose
	// following of KEDA's pods is what these tests check.
	tr, err := startProcess(ctx, "artt-traffic", traffic, []string{"KUBECONFIG=" + kubeconfig},
		"--prometheus-address="+prom.URL, "--interval=2s", "--leader-elect=false", "--leave-to-envoy=false",
		"--metrics-bind-address="+testcluster.FreeAddress(), "--health-probe-bind-address="+testcluster.FreeAddress(), "--log-format=text")
	if err != nil {
		return stopAll, err
	}
	stops = append(stops, tr)
	scalerGRPC, scalerHTTP = testcluster.FreeAddress(), testcluster.FreeAddress()
	s, err := startProcess(ctx, "artt-scaler", scaler, nil, "--grpc-address="+scalerGRPC, "--http-address="+scalerHTTP,
		"--prometheus-address="+prom.URL, "--cache-ttl=1s", "--push-interval=1s", "--log-format=text")
	if err != nil {
		return stopAll, err
	}
	stops = append(stops, s)

	stopKEDA, err := startKEDA(ctx)
	stops = append(stops, stopKEDA)
	return stopAll, err
}

// startNodesAndScheduler runs kwok, the kubelet of every node annotated
// testcluster.KwokAnnotation, and artt-scheduler with deploy/scheduler's configuration,
// which binds the application's pods.
func startNodesAndScheduler(ctx context.Context) (func(), error) {
	kwok, err := testcluster.StartKwok(ctx, work, assets, kubeconfig)
	if err != nil {
		return kwok, err
	}
	scheduler, err := testcluster.StartScheduler(ctx, work, kubeconfig, true)
	return func() { scheduler(); kwok() }, err
}

// startKEDA runs KEDA's operator and metrics adapter (testcluster.StartKEDA).
func startKEDA(ctx context.Context) (func(), error) {
	return testcluster.StartKEDA(ctx, work, assets, kubeconfig, k8s)
}

// startProcess runs a component with its output in work/<name>.log.
func startProcess(ctx context.Context, name, path string, env []string, args ...string) (func(), error) {
	return testcluster.StartProcess(ctx, work, name, path, env, args...)
}

// build builds one of ARTT's real binaries from this checkout.
func build(command string) (string, error) { return testcluster.Build(work, command) }

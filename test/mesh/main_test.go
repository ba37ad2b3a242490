package mesh_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	istioclient "istio.io/client-go/pkg/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/traffic/controller"
)

// The cluster every test of the package shares: envtest's kube-apiserver
// with Istio's CRDs, istiod, and a Prometheus scraping the test's exporter.
var (
	cfg     *rest.Config
	k8s     client.Client
	ic      istioclient.Interface
	xdsAddr string // istiod's plaintext gRPC (ADS) address
	// istiodProc is istiod's process, for the test that stops it.
	istiodProc *testcluster.Istiod
	prom       *promtest.Server
	exporter   *promtest.Exporter
	work       string
	testScope  context.Context
)

// harness starts the cluster once for every test of the package.
var harness = &testcluster.Main{
	Name: "mesh",
	Needs: []testcluster.Need{
		{Env: "ARTT_ISTIOD", Hint: "export it to the directory hack/build-istiod.sh prints"},
		{Env: "KUBEBUILDER_ASSETS", Hint: "hack/build-test-binaries.sh"},
	},
	Start: func(ctx context.Context, dir string) (func(), error) {
		testScope, work = ctx, dir
		return startCluster(ctx, os.Getenv("ARTT_ISTIOD"))
	},
}

func TestMain(m *testing.M) { os.Exit(harness.Run(m)) }

func needCluster(t *testing.T) {
	t.Helper()
	if harness.SkipWhy != "" {
		t.Skip("mesh test components missing: " + harness.SkipWhy)
	}
}

// startCluster starts envtest with Istio's CRDs (from the module istiod
// was built from), istiod against it, and Prometheus scraping the
// exporter. It returns a function that stops them.
func startCluster(ctx context.Context, istiod string) (func(), error) {
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	cp, err := testcluster.StartControlPlane(testcluster.ControlPlaneOptions{
		CRDs: []string{filepath.Join(istiod, "crd-all.gen.yaml")}, Dir: work,
	})
	if err != nil {
		return stopAll, err
	}
	stops = append(stops, cp.Stop)
	cfg = cp.Config
	cfg.QPS = -1
	s, err := controller.Scheme()
	if err != nil {
		return stopAll, err
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		return stopAll, err
	}
	if ic, err = istioclient.NewForConfig(cfg); err != nil {
		return stopAll, err
	}
	kubeconfig, err := testcluster.AdminKubeconfig(cp.Env, work, "admin")
	if err != nil {
		return stopAll, err
	}
	// istiod keeps its self-signed CA in istio-system; no controller-manager
	// creates the namespaces' default ServiceAccounts.
	for _, ns := range []string{"istio-system", appNamespace, handoverNamespace} {
		if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return stopAll, err
		}
		if err := k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}); err != nil {
			return stopAll, err
		}
	}
	d, err := testcluster.StartIstiod(ctx, istiod, work, kubeconfig)
	if d != nil {
		stops = append(stops, d.Stop)
	}
	if err != nil {
		return stopAll, err
	}
	xdsAddr, istiodProc = d.XDSAddr, d
	exporter = promtest.NewExporter(appSeries(nil))
	promDir := filepath.Join(work, "prometheus")
	if err := os.Mkdir(promDir, 0o755); err != nil {
		return stopAll, err
	}
	var stopProm func()
	prom, stopProm, err = promtest.StartWithExporter(promDir, exporter, time.Second, `istio_requests_total`, 3)
	if err != nil {
		return stopAll, err
	}
	stops = append(stops, stopProm)
	return stopAll, nil
}

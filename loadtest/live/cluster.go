package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/traffic/controller"
)

// Assets are where the real components were built (hack/build-*.sh).
type Assets struct {
	// Kubebuilder holds kube-apiserver and etcd (KUBEBUILDER_ASSETS).
	Kubebuilder string
	// Istiod holds pilot-discovery and Istio's CRDs (ARTT_ISTIOD).
	Istiod string
	// E2E holds kube-controller-manager (ARTT_E2E_ASSETS).
	E2E string
}

// AssetsFromEnv reads the three directories from the environment.
func AssetsFromEnv() Assets {
	return Assets{Kubebuilder: os.Getenv("KUBEBUILDER_ASSETS"), Istiod: os.Getenv("ARTT_ISTIOD"), E2E: os.Getenv("ARTT_E2E_ASSETS")}
}

// Check names the first component missing.
func (a Assets) Check() error {
	for _, f := range []struct{ dir, bin, from string }{
		{a.Kubebuilder, "kube-apiserver", "KUBEBUILDER_ASSETS (hack/build-test-binaries.sh)"},
		{a.Kubebuilder, "etcd", "KUBEBUILDER_ASSETS (hack/build-test-binaries.sh)"},
		{a.Istiod, "pilot-discovery", "ARTT_ISTIOD (hack/build-istiod.sh)"},
		{a.E2E, "kube-controller-manager", "ARTT_E2E_ASSETS (hack/build-e2e-binaries.sh)"},
	} {
		if f.dir == "" {
			return fmt.Errorf("%s is not set", f.from)
		}
		if _, err := os.Stat(filepath.Join(f.dir, f.bin)); err != nil {
			return fmt.Errorf("%s: %w (set by %s)", f.bin, err, f.from)
		}
	}
	if _, err := promtest.Binary(); err != nil {
		return fmt.Errorf("prometheus: %w (hack/install-components.sh)", err)
	}
	return nil
}

// Cluster is the live loop's control plane: kube-apiserver and etcd
// (envtest) with Istio's CRDs, kube-controller-manager for the
// EndpointSlices and the garbage collector, istiod, and Prometheus.
type Cluster struct {
	Config *rest.Config
	Client client.Client
	Istio  istioclient.Interface
	// Kubeconfig is an admin kubeconfig for the processes.
	Kubeconfig string
	Istiod     *testcluster.Istiod
	Prom       *promtest.Server
	// ScalerAddress is artt-scaler's gRPC address, when it runs.
	ScalerAddress string
	// Dir holds every component's log.
	Dir   string
	stops []func()
}

// ClusterConfig is what the control plane is started for.
type ClusterConfig struct {
	// Prometheus scrapes Targets every Scrape, and the probe series (the
	// emulated network's node-to-node round trips, as a blackbox exporter
	// would measure them) from an exporter of the harness's own.
	Targets []string
	Probes  []promtest.Series
	Scrape  time.Duration
	// Autoscale, when set, adds what KEDA scales with: the aggregation
	// layer, KEDA's CRDs, operator and metrics adapter, kube-controller-
	// manager's Deployment, ReplicaSet and HPA controllers (the HPA's sync
	// every HPASync), the pods' kube-state series, and artt-scaler.
	Autoscale bool
	HPASync   time.Duration
}

// StartCluster starts the control plane with its logs in dir.
func StartCluster(ctx context.Context, a Assets, dir string, cfg ClusterConfig) (*Cluster, error) {
	c := &Cluster{Dir: dir}
	if err := c.startAPI(ctx, a, cfg.Autoscale); err != nil {
		return c, err
	}
	controllers := "endpointslice-controller,garbage-collector-controller,deployment-controller,replicaset-controller"
	if cfg.Autoscale {
		controllers += ",horizontal-pod-autoscaler-controller"
	}
	stopKCM, err := testcluster.StartProcess(ctx, dir, "kube-controller-manager", filepath.Join(a.E2E, "kube-controller-manager"), nil,
		"--kubeconfig="+c.Kubeconfig, "--authentication-kubeconfig="+c.Kubeconfig, "--authorization-kubeconfig="+c.Kubeconfig,
		"--controllers="+controllers, "--leader-elect=false", "--secure-port=0",
		"--horizontal-pod-autoscaler-sync-period="+cfg.HPASync.String())
	c.stops = append(c.stops, stopKCM)
	if err != nil {
		return c, err
	}
	if c.Istiod, err = testcluster.StartIstiod(ctx, a.Istiod, dir, c.Kubeconfig); c.Istiod != nil {
		c.stops = append(c.stops, c.Istiod.Stop)
	}
	if err != nil {
		return c, err
	}
	probeAddr, stopProbes, err := serveHTTP("127.0.0.1:0", promtest.NewExporter(cfg.Probes))
	if err != nil {
		return c, err
	}
	c.stops = append(c.stops, stopProbes)
	targets := append(cfg.Targets, probeAddr)
	if cfg.Autoscale {
		reg := prometheus.NewRegistry()
		reg.MustRegister(newKubeState(c.Client))
		addr, stop, err := serveHTTP("127.0.0.1:0", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		if err != nil {
			return c, err
		}
		c.stops = append(c.stops, stop)
		targets = append(targets, addr)
	}
	promDir := filepath.Join(dir, "prometheus")
	if err := os.MkdirAll(promDir, 0o755); err != nil {
		return c, err
	}
	if c.Prom, err = promtest.Start(promDir, targets, cfg.Scrape); err != nil {
		return c, err
	}
	c.stops = append(c.stops, func() { _ = c.Prom.Stop() })
	if cfg.Autoscale {
		return c, c.startAutoscaling(ctx, a)
	}
	return c, nil
}

// apiAdvertiseAddress is the address kube-apiserver advertises, on the
// namespace's loopback beside the pods'.
const apiAdvertiseAddress = "10.80.0.1"

// startAPI starts envtest with Istio's CRDs from the module istiod was
// built from (and, to autoscale, KEDA's and the aggregation layer), and
// writes the admin kubeconfig.
func (c *Cluster) startAPI(ctx context.Context, a Assets, autoscale bool) error {
	crds := []string{filepath.Join(a.Istiod, "crd-all.gen.yaml")}
	if autoscale {
		crds = append(crds, testcluster.KEDACRDs(a.E2E))
	}
	// A namespace of its own has no default route, from which the API
	// server would pick the address it advertises, and the address may not
	// be a loopback one: it gets one of the namespace's own.
	if err := addAddress(apiAdvertiseAddress); err != nil {
		return err
	}
	cp, err := testcluster.StartControlPlane(testcluster.ControlPlaneOptions{
		Assets: a.Kubebuilder, CRDs: crds, Dir: c.Dir, Aggregation: autoscale,
		Args: map[string]string{"advertise-address": apiAdvertiseAddress},
	})
	if err != nil {
		return err
	}
	c.stops = append(c.stops, cp.Stop)
	c.Config = cp.Config
	c.Config.QPS, c.Config.Burst = 200, 400
	s, err := controller.Scheme()
	if err != nil {
		return err
	}
	if c.Client, err = client.New(c.Config, client.Options{Scheme: s}); err != nil {
		return err
	}
	if c.Istio, err = istioclient.NewForConfig(c.Config); err != nil {
		return err
	}
	if c.Kubeconfig, err = testcluster.AdminKubeconfig(cp.Env, c.Dir, "admin"); err != nil {
		return err
	}
	// istiod keeps its self-signed CA in istio-system.
	return c.createNamespace(ctx, "istio-system")
}

// createNamespace creates a namespace and its default ServiceAccount,
// which no controller makes here.
func (c *Cluster) createNamespace(ctx context.Context, name string) error {
	if err := c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		return err
	}
	return c.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}})
}

// Stop stops every component, the last started first.
func (c *Cluster) Stop() {
	for i := len(c.stops) - 1; i >= 0; i-- {
		c.stops[i]()
	}
	c.stops = nil
}

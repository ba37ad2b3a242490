package controller

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/artt-dev/artt/traffic/allocate"
)

var nodesOnce sync.Once

// ensureNodes creates n1..n3, Ready, each its own Istio locality.
func ensureNodes(t *testing.T) {
	t.Helper()
	nodesOnce.Do(func() {
		for _, name := range testNodes {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				RegionLabel: "r1", ZoneLabel: "z1", SubzoneLabel: name,
			}}}
			if err := k8s.Create(testScope, n); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
	})
	for _, name := range testNodes {
		setNodeReady(t, name, true)
	}
}

func setNodeReady(t *testing.T, name string, ready bool) {
	t.Helper()
	n := &corev1.Node{}
	if err := k8s.Get(testScope, client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	status := corev1.ConditionTrue
	if !ready {
		status = corev1.ConditionFalse
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(), Reason: "Test"}}
	if err := k8s.Status().Update(testScope, n); err != nil {
		t.Fatal(err)
	}
}

// createApp creates namespace ns with managed Deployments frontend and
// backend and one ready pod of each per node (there is no scheduler or
// kubelet in envtest: the pods are bound and marked ready by hand).
func createApp(t *testing.T, ns string) {
	t.Helper()
	ensureNodes(t)
	if err := k8s.Create(testScope, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for _, w := range []string{"frontend", "backend"} {
		if err := k8s.Create(testScope, managedDeployment(ns, w)); err != nil {
			t.Fatal(err)
		}
		for _, n := range testNodes {
			createPod(t, ns, w+"-"+n, w, n)
		}
	}
}

// managedDeployment is a Deployment opted in to ARTT, selecting app=name.
func managedDeployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{ManagedLabel: "true"}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example/app"}}},
			},
		},
	}
}

func createPod(t *testing.T, ns, name, app, node string) {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{
			Name: "app", Image: "example/app",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		}}},
	}
	if err := k8s.Create(testScope, p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	if err := k8s.Status().Update(testScope, p); err != nil {
		t.Fatal(err)
	}
}

// instance is one running artt-traffic.
type instance struct {
	c    *Controller
	reg  *prometheus.Registry
	stop func()
	// cancel ends the manager without waiting for it (a leader losing its
	// lease); done receives its end.
	cancel func()
	done   chan error
}

type instanceOptions struct {
	dryRun      bool
	leaderElect bool
	interval    time.Duration
	// protectInterval 0 keeps the fast path off; queries default to
	// testQueries.
	protectInterval time.Duration
	queries         *Queries
	// promURL defaults to the shared Prometheus; collectTimeout to 2s.
	promURL        string
	collectTimeout time.Duration
	// quiet drops the controller's log even under -v.
	quiet bool
	// restConfig reaches the apiserver another way for the manager (cache
	// and leader election), writeConfig for the DestinationRule writes
	// (both default to cfg).
	restConfig, writeConfig *rest.Config
	// beforeWrite is the controller's hook between computing and writing.
	beforeWrite func(component string)
	// topology is the ConfigMap to publish the topology to ("" none).
	topology string
	// forgetAfter overrides the policy's grace for components gone.
	forgetAfter time.Duration
	// stoppedByCaller leaves the instance out of the test's cleanup, which
	// would keep every instance a long test starts reachable until it ends:
	// the caller stops it.
	stoppedByCaller bool
}

// start runs a manager with the controller, as cmd/artt-traffic does.
func start(t *testing.T, o instanceOptions) *instance {
	t.Helper()
	s, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	lease, renew, retry := 2*time.Second, 1500*time.Millisecond, 200*time.Millisecond
	cacheOpts, err := CacheOptions()
	if err != nil {
		t.Fatal(err)
	}
	rc := cfg
	if o.restConfig != nil {
		rc = o.restConfig
	}
	mgr, err := ctrl.NewManager(rc, ctrl.Options{
		Scheme: s, Cache: cacheOpts, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		LeaderElection: o.leaderElect, LeaderElectionID: "artt-traffic-test", LeaderElectionNamespace: "default",
		LeaderElectionReleaseOnCancel: true, LeaseDuration: &lease, RenewDeadline: &renew, RetryPeriod: &retry,
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.promURL == "" {
		o.promURL = prom.URL
	}
	if o.collectTimeout == 0 {
		o.collectTimeout = 2 * time.Second
	}
	pc, err := api.NewClient(api.Config{Address: o.promURL})
	if err != nil {
		t.Fatal(err)
	}
	if o.interval == 0 {
		o.interval = 2 * time.Second
	}
	reg := prometheus.NewRegistry()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() && !o.quiet {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	if o.protectInterval == 0 {
		o.protectInterval = -1
	}
	queries := testQueries()
	if o.queries != nil {
		queries = *o.queries
	}
	writes := ic
	if o.writeConfig != nil {
		if writes, err = istioclient.NewForConfig(o.writeConfig); err != nil {
			t.Fatal(err)
		}
	}
	allocOpts := allocate.DefaultOptions()
	if o.forgetAfter > 0 {
		allocOpts.ForgetAfter = o.forgetAfter
	}
	c, err := New(mgr.GetClient(), mgr.GetCache(), writes, Options{
		Interval: o.interval, ProtectInterval: o.protectInterval, Policy: "artt", Allocate: allocOpts, DryRun: o.dryRun,
		Collector: Collector{Client: pc, Queries: queries, Timeout: o.collectTimeout},
		Topology:  o.topology,
	}, reg, logger)
	if err != nil {
		t.Fatal(err)
	}
	c.beforeWrite = o.beforeWrite
	if err := mgr.Add(c); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testScope)
	in := &instance{c: c, reg: reg, cancel: cancel, done: make(chan error, 1)}
	go func() { in.done <- mgr.Start(ctx) }()
	var once sync.Once
	in.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-in.done:
			case <-time.After(10 * time.Second):
				t.Error("manager did not stop within 10s")
			}
		})
	}
	if !o.stoppedByCaller {
		t.Cleanup(in.stop)
	}
	return in
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

func getRule(ns, name string) (*networkingv1.DestinationRule, error) {
	return ic.NetworkingV1().DestinationRules(ns).Get(testScope, name, metav1.GetOptions{})
}

// distribution reads a rule's distribute entries as from → to → weight.
func distribution(dr *networkingv1.DestinationRule) map[string]map[string]uint32 {
	out := map[string]map[string]uint32{}
	lb := dr.Spec.GetTrafficPolicy().GetLoadBalancer().GetLocalityLbSetting()
	for _, d := range lb.GetDistribute() {
		out[d.GetFrom()] = d.GetTo()
	}
	return out
}

// waitFor polls cond every 20 ms until it holds or the timeout passes, and
// returns how long it took.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	return waitEvery(t, 20*time.Millisecond, timeout, what, cond)
}

// waitEvery is waitFor with its own polling period, for conditions that
// cost CPU the measured code needs (gathering a fleet's metrics).
func waitEvery(t *testing.T, period, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > timeout {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(period)
	}
	return time.Since(start)
}

// collectorTotal is counter over one of the controller's collectors
// alone: the fleet test polls every second, and gathering the whole
// registry there sorts 9,000 share gauges each time, CPU the controller
// it measures needs.
func collectorTotal(t *testing.T, c prometheus.Collector, name string, labels map[string]string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	return counter(t, reg, name, labels)
}

func counter(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metric:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if want, ok := labels[lp.GetName()]; ok && want != lp.GetValue() {
					continue metric
				}
			}
			if m.Counter != nil {
				total += m.GetCounter().GetValue()
			}
			if m.Gauge != nil {
				total += m.GetGauge().GetValue()
			}
			if m.Histogram != nil {
				total += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return total
}

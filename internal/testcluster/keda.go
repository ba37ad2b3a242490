package testcluster

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// KEDACRDs is where hack/build-e2e-binaries.sh leaves the CRDs of the KEDA
// it built (ScaledObject among them), for envtest to install.
func KEDACRDs(assets string) string { return filepath.Join(assets, "keda-crds") }

// EnableAggregation configures envtest's kube-apiserver as the aggregator
// KEDA's metrics adapter trusts: it proves itself to the adapter with a
// front-proxy client certificate (issued into dir/front-proxy) that the
// adapter accepts through the requestheader CA.
func EnableAggregation(api *envtest.APIServer, dir string) error {
	front, err := NewAuthority("front-proxy-ca")
	if err != nil {
		return err
	}
	pki := filepath.Join(dir, "front-proxy")
	if err := front.Issue(pki, "client", "front-proxy-client", nil); err != nil {
		return err
	}
	args := api.Configure()
	args.Set("requestheader-client-ca-file", filepath.Join(pki, "ca.crt"))
	args.Set("requestheader-allowed-names", "front-proxy-client")
	args.Set("requestheader-username-headers", "X-Remote-User")
	args.Set("requestheader-group-headers", "X-Remote-Group")
	args.Set("requestheader-extra-headers-prefix", "X-Remote-Extra-")
	args.Set("proxy-client-cert-file", filepath.Join(pki, "client.crt"))
	args.Set("proxy-client-key-file", filepath.Join(pki, "client.key"))
	return nil
}

// StartKEDA runs KEDA's operator and metrics adapter (from assets) against
// the cluster of kubeconfig, with their logs in dir, and registers the
// adapter as the external metrics API. The certificates are the test's
// own: the operator's gRPC metrics service and the adapter's client share
// them, as KEDA's own rotation would make them. The API server must have
// been started with EnableAggregation.
func StartKEDA(ctx context.Context, dir, assets, kubeconfig string, k8s client.Client) (func(), error) {
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if err := client.IgnoreAlreadyExists(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "keda"}})); err != nil {
		return stopAll, err
	}
	ca, err := NewAuthority("keda-ca")
	if err != nil {
		return stopAll, err
	}
	certs := filepath.Join(dir, "keda-certs")
	names := []string{"keda-operator", "keda-operator.keda", "keda-operator.keda.svc", "keda-operator.keda.svc.cluster.local",
		"keda-metrics-apiserver", "keda-metrics-apiserver.keda", "keda-metrics-apiserver.keda.svc", "localhost"}
	if err := ca.Issue(certs, "tls", "keda-operator", names); err != nil {
		return stopAll, err
	}
	env := []string{"WATCH_NAMESPACE=", "KEDA_CLUSTER_OBJECT_NAMESPACE=keda", "POD_NAMESPACE=keda", "KUBECONFIG=" + kubeconfig}
	metricsService := FreeAddress()
	op, err := StartProcess(ctx, dir, "keda-operator", filepath.Join(assets, "keda-operator"), env,
		"--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--metrics-service-bind-address="+metricsService, "--cert-dir="+certs,
		"--enable-webhook-patching=false", "--enable-apiservice-patching=false", "--enable-cert-rotation=false",
		"--zap-log-level=info")
	stops = append(stops, op)
	if err != nil {
		return stopAll, err
	}
	securePort := FreePort()
	ad, err := StartProcess(ctx, dir, "keda-adapter", filepath.Join(assets, "keda-adapter"), env,
		"--kubeconfig="+kubeconfig, "--lister-kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig,
		fmt.Sprintf("--secure-port=%d", securePort), "--cert-dir="+certs,
		"--tls-cert-file="+filepath.Join(certs, "tls.crt"), "--tls-private-key-file="+filepath.Join(certs, "tls.key"),
		"--metrics-service-address="+metricsService, "--metrics-service-grpc-authority=keda-operator.keda.svc.cluster.local",
		fmt.Sprintf("--port=%d", FreePort()), "--v=2")
	stops = append(stops, ad)
	if err != nil {
		return stopAll, err
	}
	return stopAll, registerAdapter(ctx, k8s, securePort)
}

// registerAdapter makes KEDA's adapter the external metrics API: an
// ExternalName Service "localhost" (Endpoints may not point at loopback)
// and the APIService that routes to it.
func registerAdapter(ctx context.Context, k8s client.Client, port int) error {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "keda-metrics-apiserver", Namespace: "keda"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}},
	}
	if err := k8s.Create(ctx, svc); err != nil {
		return err
	}
	api := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": "v1beta1.external.metrics.k8s.io"},
		"spec": map[string]any{
			"group": "external.metrics.k8s.io", "version": "v1beta1",
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"insecureSkipTLSVerify": true,
			"service":               map[string]any{"name": "keda-metrics-apiserver", "namespace": "keda", "port": int64(port)},
		},
	}}
	return k8s.Create(ctx, api)
}

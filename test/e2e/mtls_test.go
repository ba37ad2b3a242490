package e2e_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/proto/externalscaler"
)

// mutualTLS switches the ScaledObject to deploy/examples/scaler-mtls: a
// second artt-scaler serving TLS and requiring client certificates, and a
// TriggerAuthentication through which KEDA presents one. The chain keeps
// working, and a client without the certificate is refused.
func mutualTLS(t *testing.T) {
	ca, err := testcluster.NewAuthority("artt-scaler-ca")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "scaler-mtls")
	if err := ca.Issue(dir, "server", "artt-scaler", []string{"artt-scaler.artt-system.svc.cluster.local"}); err != nil {
		t.Fatal(err)
	}
	if err := ca.Issue(dir, "client", "keda", nil); err != nil {
		t.Fatal(err)
	}
	scaler := filepath.Join(work, "artt-scaler") // built by startCluster
	grpcAddr, httpAddr := testcluster.FreeAddress(), testcluster.FreeAddress()
	stop, err := startProcess(testScope, "artt-scaler-mtls", scaler, nil, "--grpc-address="+grpcAddr, "--http-address="+httpAddr,
		"--prometheus-address="+prom.URL, "--cache-ttl=1s", "--log-format=text",
		"--tls-cert-file="+filepath.Join(dir, "server.crt"), "--tls-key-file="+filepath.Join(dir, "server.key"),
		"--tls-client-ca-file="+filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)

	read := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "keda-artt-client", Namespace: "shop"},
		Data:       map[string][]byte{"ca.crt": read("ca.crt"), "tls.crt": read("client.crt"), "tls.key": read("client.key")},
	}
	if err := k8s.Create(testScope, secret); err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("../../deploy/examples/scaler-mtls/triggerauthentication.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ReplaceAll(string(example), "artt-scaler.artt-system.svc.cluster.local:6000", grpcAddr)
	path := filepath.Join(work, "scaler-mtls.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, "apply", "-f", path)

	waitFor(t, 90*time.Second, "KEDA's calls reaching the mutual-TLS artt-scaler", func() bool {
		return metricValue(t, httpAddr, `artt_scaler_grpc_requests_total{code="OK",method="/externalscaler.ExternalScaler/GetMetrics"}`) >= 3
	})
	out := kubectl(t, "get", "scaledobject", "web", "-n", "shop")
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 6 && f[0] == "web" && f[5] != "True" {
			t.Errorf("ScaledObject READY %s over mutual TLS:\n%s", f[5], out)
		}
	}

	// A client that trusts the server but has no certificate is refused.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(read("ca.crt"))
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(testScope, 5*time.Second)
	defer cancel()
	_, err = externalscaler.NewExternalScalerClient(conn).IsActive(ctx, &externalscaler.ScaledObjectRef{Name: "web", Namespace: "shop",
		ScalerMetadata: map[string]string{"workload": "web"}})
	if err == nil {
		t.Error("a client without a certificate was served")
	} else {
		t.Logf("a client without a certificate: %v", err)
	}
}

package kedatest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kedacore/keda/v2/pkg/scalers"
	"github.com/kedacore/keda/v2/pkg/scalers/scalersconfig"
	v2 "k8s.io/api/autoscaling/v2"

	"github.com/artt-dev/artt/internal/promtest"
)

var (
	prom      *promtest.Server
	plainAddr string // artt-scaler without TLS
	scalerBin string // the artt-scaler binary the tests run
	workDir   string // where the processes' logs go
	mtlsAddr  string // artt-scaler requiring client certificates
	pki       testPKI
	skipWhy   string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if _, err := promtest.Binary(); err != nil {
		skipWhy = err.Error()
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "artt-kedatest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)

	bin := filepath.Join(dir, "artt-scaler")
	scalerBin, workDir = bin, dir
	build := exec.Command("go", "build", "-C", "../..", "-o", bin, "./cmd/artt-scaler")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build artt-scaler: %v\n%s", err, out)
		return 1
	}
	var stop func()
	prom, stop, err = promtest.StartWithExporter(filepath.Join(dir), promtest.NewExporter(promtest.ShopSeries()), time.Second,
		`istio_requests_total{destination_workload="web"}`, 8)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()

	if pki, err = newPKI(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	plain, err := startScaler(bin, dir, "plain")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer plain.stop()
	plainAddr = plain.grpc
	mtls, err := startScaler(bin, dir, "mtls", "--tls-cert-file="+pki.serverCert, "--tls-key-file="+pki.serverKey, "--tls-client-ca-file="+pki.caFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer mtls.stop()
	mtlsAddr = mtls.grpc
	return m.Run()
}

type scalerProcess struct {
	grpc string
	cmd  *exec.Cmd
}

func (p scalerProcess) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.cmd.Wait()
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// startScaler runs the artt-scaler binary and waits for /readyz.
func startScaler(bin, dir, name string, extra ...string) (scalerProcess, error) {
	grpcAddr, err := freePort()
	if err != nil {
		return scalerProcess{}, err
	}
	httpAddr, err := freePort()
	if err != nil {
		return scalerProcess{}, err
	}
	args := append([]string{
		"--grpc-address=" + grpcAddr, "--http-address=" + httpAddr,
		"--prometheus-address=" + prom.URL, "--cache-ttl=100ms", "--push-interval=200ms", "--log-level=debug",
		// The closed port below is allowed so that an unreachable
		// Prometheus can be told from a refused one.
		"--allowed-prometheus=" + prom.URL + ",http://127.0.0.1:1",
	}, extra...)
	cmd := exec.Command(bin, args...)
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return scalerProcess{}, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return scalerProcess{}, err
	}
	p := scalerProcess{grpc: grpcAddr, cmd: cmd}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + httpAddr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
	p.stop()
	log, _ := os.ReadFile(filepath.Join(dir, name+".log"))
	return scalerProcess{}, fmt.Errorf("artt-scaler %s not ready: %s", name, log)
}

func needComponents(t *testing.T) {
	t.Helper()
	if prom != nil {
		return
	}
	if promtest.Required() {
		t.Fatalf("Prometheus is required but missing: %s", skipWhy)
	}
	t.Skipf("Prometheus not installed, skipping: %s", skipWhy)
}

// kedaConfig is the ScalerConfig KEDA's operator builds for a trigger.
func kedaConfig(addr string, md map[string]string, auth map[string]string, metricType v2.MetricTargetType) *scalersconfig.ScalerConfig {
	trigger := map[string]string{
		"scalerAddress": addr, "workload": "web", "step": "1s", "window": "10", "history": "5", "rateWindow": "5s",
	}
	for k, v := range md {
		trigger[k] = v
	}
	if auth == nil {
		auth = map[string]string{}
	}
	return &scalersconfig.ScalerConfig{
		ScalableObjectName:      "web",
		ScalableObjectNamespace: "shop",
		ScalableObjectType:      "ScaledObject",
		TriggerType:             "external",
		TriggerMetadata:         trigger,
		AuthParams:              auth,
		ResolvedEnv:             map[string]string{},
		MetricType:              metricType,
		GlobalHTTPTimeout:       5 * time.Second,
	}
}

func TestKEDAClientReadsMetricSpecValueAndActivity(t *testing.T) {
	needComponents(t)
	cases := []struct {
		name       string
		md         map[string]string
		metricType v2.MetricTargetType
		metric     string
		target     float64
		value      float64
		active     bool
	}{
		{"normalized with metricType Value", nil, v2.ValueMetricType, "s0-artt-load", 100, 75, true},
		{"utilization form", map[string]string{"metricForm": "utilization"}, v2.ValueMetricType, "s0-artt-cpu-utilization", 80, 60, true},
		{"below activation", map[string]string{"activationRequestRate": "50"}, v2.ValueMetricType, "s0-artt-load", 100, 75, false},
		{"AverageValue target type is honoured", nil, v2.AverageValueMetricType, "s0-artt-load", 100, 75, true},
		// 0.6 cores at θ = 80% of one pod's 0.5 cores: 1.5 pods' worth, against one pod.
		{"pods form with metricType AverageValue", map[string]string{"metricForm": "pods"}, v2.AverageValueMetricType, "s0-artt-pods", 1, 1.5, true},
		// KEDA's TLS keys, as older releases read them from the metadata:
		// KEDA passes them on, and artt-scaler must not refuse the trigger.
		{"KEDA's TLS keys in the metadata", map[string]string{"caCert": "-----BEGIN CERTIFICATE-----", "tlsClientCert": "cert", "tlsClientKey": "key", "tlsCertFile": "/certs/tls.crt"},
			v2.ValueMetricType, "s0-artt-load", 100, 75, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scalers.NewExternalScaler(kedaConfig(plainAddr, tc.md, nil, tc.metricType))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			ctx := context.Background()
			specs := s.GetMetricSpecForScaling(ctx)
			if len(specs) != 1 || specs[0].External == nil {
				t.Fatalf("metric specs = %+v, want one external metric", specs)
			}
			ext := specs[0].External
			if ext.Metric.Name != tc.metric {
				t.Errorf("metric name = %q, want %q", ext.Metric.Name, tc.metric)
			}
			if ext.Target.Type != tc.metricType {
				t.Errorf("target type = %q, want %q", ext.Target.Type, tc.metricType)
			}
			q := ext.Target.Value
			if tc.metricType == v2.AverageValueMetricType {
				q = ext.Target.AverageValue
			}
			if q == nil || q.AsApproximateFloat64() != tc.target {
				t.Errorf("target = %v, want %v", q, tc.target)
			}
			values, active, err := s.GetMetricsAndActivity(ctx, tc.metric)
			if err != nil {
				t.Fatal(err)
			}
			if len(values) != 1 || values[0].MetricName != tc.metric {
				t.Fatalf("values = %+v, want one for %s", values, tc.metric)
			}
			if got := values[0].Value.AsApproximateFloat64(); got < tc.value*0.99 || got > tc.value*1.01 {
				t.Errorf("value = %v, want %v", got, tc.value)
			}
			if active != tc.active {
				t.Errorf("active = %v, want %v", active, tc.active)
			}
		})
	}
}

func TestKEDAClientSeesErrors(t *testing.T) {
	needComponents(t)
	cases := []struct {
		name string
		md   map[string]string
		says []string
	}{
		{"bad metadata names key and value", map[string]string{"maxThreshold": "eighty"}, []string{"InvalidArgument", `"maxThreshold"`, "eighty"}},
		{"unreachable Prometheus is Unavailable", map[string]string{"prometheusAddress": "http://127.0.0.1:1"}, []string{"Unavailable"}},
		{"a Prometheus not allowed is refused", map[string]string{"prometheusAddress": "http://127.0.0.1:2"}, []string{"InvalidArgument", `"prometheusAddress"`, "--allowed-prometheus"}},
		{"a query override is refused", map[string]string{"cpuUsageQuery": "sum(up)"}, []string{"InvalidArgument", `"cpuUsageQuery"`, "--allow-query-overrides"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scalers.NewExternalScaler(kedaConfig(plainAddr, tc.md, nil, v2.ValueMetricType))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			values, active, err := s.GetMetricsAndActivity(context.Background(), "s0-artt-load")
			if err == nil {
				t.Fatalf("no error; values %v, active %v", values, active)
			}
			for _, want := range tc.says {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if active || len(values) != 0 {
				t.Errorf("an error came with values %v / active %v; KEDA must see only the error", values, active)
			}
		})
	}
}

func TestKEDAClientMutualTLS(t *testing.T) {
	needComponents(t)
	withCert := map[string]string{"caCert": pki.caPEM, "tlsClientCert": pki.clientCertPEM, "tlsClientKey": pki.clientKeyPEM}
	s, err := scalers.NewExternalScaler(kedaConfig(mtlsAddr, nil, withCert, v2.ValueMetricType))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	values, active, err := s.GetMetricsAndActivity(context.Background(), "s0-artt-load")
	if err != nil {
		t.Fatalf("mutual TLS call failed: %v", err)
	}
	if got := values[0].Value.AsApproximateFloat64(); got < 74 || got > 76 || !active {
		t.Errorf("value %v active %v, want 75 and true", got, active)
	}

	caOnly := map[string]string{"caCert": pki.caPEM}
	s2, err := scalers.NewExternalScaler(kedaConfig(mtlsAddr, map[string]string{"window": "11"}, caOnly, v2.ValueMetricType))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close(context.Background())
	if _, _, err := s2.GetMetricsAndActivity(context.Background(), "s0-artt-load"); err == nil {
		t.Error("a client without a certificate was served under mutual TLS")
	}
}

func TestKEDAPushScalerStreams(t *testing.T) {
	needComponents(t)
	cfg := kedaConfig(plainAddr, map[string]string{"metricForm": "utilization"}, nil, v2.ValueMetricType)
	cfg.TriggerType = "external-push"
	s, err := scalers.NewExternalPushScaler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	active := make(chan bool, 4)
	go s.Run(ctx, active)
	select {
	case a := <-active:
		if !a {
			t.Error("StreamIsActive sent false with 20 requests per second")
		}
	case <-ctx.Done():
		t.Fatal("no StreamIsActive message")
	}
	specCh := s.(interface {
		MetricSpecChan() <-chan []v2.MetricSpec
	}).MetricSpecChan()
	select {
	case specs := <-specCh:
		if len(specs) != 1 || specs[0].External.Metric.Name != "s0-artt-cpu-utilization" {
			t.Fatalf("streamed specs = %+v", specs)
		}
		if got := specs[0].External.Target.Value.AsApproximateFloat64(); got != 80 {
			t.Errorf("streamed target = %v, want the threshold 80", got)
		}
	case <-ctx.Done():
		t.Fatal("no StreamMetricSpec message")
	}
}

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, as files (for artt-scaler) and PEM strings (for KEDA's
// TriggerAuthentication parameters).
type testPKI struct {
	caFile, serverCert, serverKey      string
	caPEM, clientCertPEM, clientKeyPEM string
}

func newPKI(dir string) (testPKI, error) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "artt test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return testPKI{}, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, usage x509.ExtKeyUsage) (string, string, error) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "artt"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			return "", "", err
		}
		kder, _ := x509.MarshalECPrivateKey(key)
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
			string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})), nil
	}
	p := testPKI{caPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))}
	srvCert, srvKey, err := issue(2, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return testPKI{}, err
	}
	if p.clientCertPEM, p.clientKeyPEM, err = issue(3, x509.ExtKeyUsageClientAuth); err != nil {
		return testPKI{}, err
	}
	p.caFile, p.serverCert, p.serverKey = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for f, data := range map[string]string{p.caFile: p.caPEM, p.serverCert: srvCert, p.serverKey: srvKey} {
		if err := os.WriteFile(f, []byte(data), 0o600); err != nil {
			return testPKI{}, err
		}
	}
	return p, nil
}

package scaler

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	pb "github.com/artt-dev/artt/proto/externalscaler"
)

// testCA issues certificates for tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "artt test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns PEM certificate and key for a leaf with the given serial.
func (ca *testCA) issue(t *testing.T, serial int64, server bool) (certPEM, keyPEM []byte) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "artt"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// tlsServer serves artt-scaler with mutual TLS from files in a temporary
// directory, first with a server certificate of serial 100.
type tlsServer struct {
	ca                        *testCA
	certFile, keyFile, caFile string
	lis                       net.Listener
}

func startTLSServer(t *testing.T) *tlsServer {
	t.Helper()
	dir := t.TempDir()
	s := &tlsServer{ca: newTestCA(t), certFile: filepath.Join(dir, "tls.crt"), keyFile: filepath.Join(dir, "tls.key"), caFile: filepath.Join(dir, "ca.crt")}
	c, k := s.ca.issue(t, 100, true)
	writeFile(t, s.certFile, c)
	writeFile(t, s.keyFile, k)
	writeFile(t, s.caFile, s.ca.pem)
	reloader, err := NewCertReloader(s.certFile, s.keyFile, s.caFile, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if s.lis, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.Creds(credentials.NewTLS(reloader.TLSConfig())))
	pb.RegisterExternalScalerServer(gs, NewServer(Options{Source: NewPrometheusSource(nil), Tenancy: openTenancy()}))
	go func() { _ = gs.Serve(s.lis) }()
	t.Cleanup(gs.Stop)
	return s
}

func TestMutualTLSAndCertificateReload(t *testing.T) {
	srv := startTLSServer(t)
	ca, certFile, keyFile, lis := srv.ca, srv.certFile, srv.keyFile, srv.lis

	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	cc, ck := ca.issue(t, 200, false)
	clientCert, err := tls.X509KeyPair(cc, ck)
	if err != nil {
		t.Fatal(err)
	}
	call := func(certs []tls.Certificate) error {
		conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots, Certificates: certs})))
		if err != nil {
			return err
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = pb.NewExternalScalerClient(conn).GetMetricSpec(ctx, &pb.ScaledObjectRef{
			Name: "web", Namespace: "shop", ScalerMetadata: map[string]string{"prometheusAddress": "http://127.0.0.1:9"},
		})
		return err
	}
	if err := call([]tls.Certificate{clientCert}); err != nil {
		t.Fatalf("call with a client certificate failed: %v", err)
	}
	if err := call(nil); err == nil {
		t.Fatal("call without a client certificate succeeded under mutual TLS")
	}

	serial := func() int64 {
		conn, err := tls.Dial("tcp", lis.Addr().String(), &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{clientCert}, NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if got := serial(); got != 100 {
		t.Fatalf("served serial %d, want 100", got)
	}
	c2, k2 := ca.issue(t, 101, true)
	writeFile(t, certFile, c2)
	writeFile(t, keyFile, k2)
	deadline := time.Now().Add(5 * time.Second)
	for serial() != 101 {
		if time.Now().After(deadline) {
			t.Fatal("rotated certificate not served within 5s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A broken file keeps the last good certificate in service.
	writeFile(t, certFile, []byte("not a certificate"))
	time.Sleep(1100 * time.Millisecond)
	if got := serial(); got != 101 {
		t.Errorf("after a broken file the served serial is %d, want the last good 101", got)
	}
}

func TestCertReloaderRejectsBadFilesAtStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	writeFile(t, bad, []byte("garbage"))
	cases := []struct{ name, cert, key, ca string }{
		{"missing files", filepath.Join(dir, "none.crt"), filepath.Join(dir, "none.key"), ""},
		{"garbage pair", bad, bad, ""},
		{"no key", bad, "", ""},
	}
	for _, tc := range cases {
		if _, err := NewCertReloader(tc.cert, tc.key, tc.ca, slog.Default()); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// Certificates rotated under a stream of calls: one caller on a kept
// connection (as KEDA's client keeps one) and one dialling a new connection,
// so a new handshake, for every call. Three rotations, each written the
// way a careless tool would (certificate first, key a moment later): not
// one call fails, and the last certificate is the one served.
func TestRotationUnderLoadFailsNoCall(t *testing.T) {
	srv := startTLSServer(t)
	roots := x509.NewCertPool()
	roots.AddCert(srv.ca.cert)
	cc, ck := srv.ca.issue(t, 200, false)
	clientCert, err := tls.X509KeyPair(cc, ck)
	if err != nil {
		t.Fatal(err)
	}
	creds := grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots, Certificates: []tls.Certificate{clientCert}}))
	ask := func(conn *grpc.ClientConn) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := pb.NewExternalScalerClient(conn).GetMetricSpec(ctx, &pb.ScaledObjectRef{
			Name: "web", Namespace: "shop", ScalerMetadata: map[string]string{"prometheusAddress": "http://127.0.0.1:9"},
		})
		return err
	}
	kept, err := grpc.NewClient(srv.lis.Addr().String(), creds)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()

	stop := make(chan struct{})
	var calls, failures atomic.Int64
	var lastErr atomic.Value
	var wg sync.WaitGroup
	caller := func(fresh bool, every time.Duration) {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(every):
			}
			conn := kept
			if fresh {
				c, err := grpc.NewClient(srv.lis.Addr().String(), creds)
				if err != nil {
					failures.Add(1)
					lastErr.Store(err)
					continue
				}
				conn = c
			}
			calls.Add(1)
			if err := ask(conn); err != nil {
				failures.Add(1)
				lastErr.Store(err)
			}
			if fresh {
				conn.Close()
			}
		}
	}
	wg.Add(2)
	go caller(false, 5*time.Millisecond)
	go caller(true, 20*time.Millisecond)

	for serial := int64(101); serial <= 103; serial++ {
		c, k := srv.ca.issue(t, serial, true)
		writeFile(t, srv.certFile, c)
		time.Sleep(300 * time.Millisecond) // a reload may see the new certificate with the old key
		writeFile(t, srv.keyFile, k)
		time.Sleep(1500 * time.Millisecond) // past the reload interval
	}
	close(stop)
	wg.Wait()
	t.Logf("%d calls during three rotations, %d failed", calls.Load(), failures.Load())
	if failures.Load() != 0 {
		t.Errorf("%d of %d calls failed during the rotations; last: %v", failures.Load(), calls.Load(), lastErr.Load())
	}
	conn, err := tls.Dial("tcp", srv.lis.Addr().String(), &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{clientCert}, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64(); got != 103 {
		t.Errorf("served serial %d after the rotations, want 103", got)
	}
}

// TLS 1.1 and a CBC suite under TLS 1.2 are refused; TLS 1.2 with an AEAD
// suite is served.
func TestOnlyModernTLS(t *testing.T) {
	srv := startTLSServer(t)
	roots := x509.NewCertPool()
	roots.AddCert(srv.ca.cert)
	cc, ck := srv.ca.issue(t, 300, false)
	clientCert, err := tls.X509KeyPair(cc, ck)
	if err != nil {
		t.Fatal(err)
	}
	dial := func(cfg *tls.Config) error {
		cfg.RootCAs, cfg.Certificates, cfg.NextProtos = roots, []tls.Certificate{clientCert}, []string{"h2"}
		conn, err := tls.Dial("tcp", srv.lis.Addr().String(), cfg)
		if err == nil {
			conn.Close()
		}
		return err
	}
	if err := dial(&tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}); err == nil {
		t.Error("TLS 1.1 accepted")
	}
	if err := dial(&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}}); err == nil {
		t.Error("a CBC suite accepted under TLS 1.2")
	}
	if err := dial(&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}); err != nil {
		t.Errorf("TLS 1.2 with AES-GCM refused: %v", err)
	}
}

package scaler

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// CertReloader serves a TLS certificate, and optionally a client CA for
// mutual TLS, from files, and picks up new files without a restart (as
// cert-manager or a mounted Secret rotates them). A file that fails to load
// keeps the previous certificate in service and is logged.
type CertReloader struct {
	certFile, keyFile, caFile string
	log                       *slog.Logger
	now                       func() time.Time

	mu        sync.Mutex
	checked   time.Time
	stamp     string
	badStamp  string // files that failed to load, so the failure is logged once
	cert      *tls.Certificate
	clientCAs *x509.CertPool
}

// reloadCheckInterval bounds how often the files are stat'ed.
const reloadCheckInterval = time.Second

// NewCertReloader loads the files once; it fails when they do not load.
// caFile may be empty for TLS without client certificates.
func NewCertReloader(certFile, keyFile, caFile string, log *slog.Logger) (*CertReloader, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("TLS needs both a certificate file and a key file")
	}
	r := &CertReloader{certFile: certFile, keyFile: keyFile, caFile: caFile, log: log, now: time.Now}
	stamp, err := r.fileStamp()
	if err != nil {
		return nil, err
	}
	if err := r.load(stamp); err != nil {
		return nil, err
	}
	return r, nil
}

// fileStamp summarises the files' sizes and modification times.
func (r *CertReloader) fileStamp() (string, error) {
	stamp := ""
	for _, f := range []string{r.certFile, r.keyFile, r.caFile} {
		if f == "" {
			continue
		}
		st, err := os.Stat(f)
		if err != nil {
			return "", fmt.Errorf("stat %s: %w", f, err)
		}
		stamp += fmt.Sprintf("%s:%d:%d;", f, st.Size(), st.ModTime().UnixNano())
	}
	return stamp, nil
}

func (r *CertReloader) load(stamp string) error {
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("load key pair %s, %s: %w", r.certFile, r.keyFile, err)
	}
	var pool *x509.CertPool
	if r.caFile != "" {
		pem, err := os.ReadFile(r.caFile)
		if err != nil {
			return fmt.Errorf("read client CA %s: %w", r.caFile, err)
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("client CA %s holds no PEM certificate", r.caFile)
		}
	}
	r.cert, r.clientCAs, r.stamp = &cert, pool, stamp
	return nil
}

// current reloads the files when they changed and returns what to serve.
func (r *CertReloader) current() (*tls.Certificate, *x509.CertPool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := r.now(); now.Sub(r.checked) >= reloadCheckInterval {
		r.checked = now
		stamp, err := r.fileStamp()
		if err == nil && stamp != r.stamp && stamp != r.badStamp {
			err = r.load(stamp)
			if err == nil {
				r.log.Info("reloaded TLS certificate", "certFile", r.certFile, "clientCAFile", r.caFile)
			} else {
				r.badStamp = stamp
			}
		}
		if err != nil {
			r.log.Error("keeping the previous TLS certificate", "error", err)
		}
	}
	return r.cert, r.clientCAs
}

// modernCipherSuites are the TLS 1.2 suites allowed: forward-secret
// (ECDHE) and authenticated encryption (GCM, ChaCha20-Poly1305) only, what
// Mozilla's "intermediate" profile keeps; no CBC, no RSA key exchange.
// TLS 1.3's suites are all of that kind and not configurable.
var modernCipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// TLSConfig returns a server configuration that asks the reloader for the
// certificate on every handshake; with a client CA it requires and verifies
// client certificates.
func (r *CertReloader) TLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		CipherSuites: modernCipherSuites,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			cert, pool := r.current()
			cfg := &tls.Config{
				MinVersion:   tls.VersionTLS12,
				CipherSuites: modernCipherSuites,
				Certificates: []tls.Certificate{*cert},
				NextProtos:   []string{"h2"},
			}
			if pool != nil {
				cfg.ClientCAs = pool
				cfg.ClientAuth = tls.RequireAndVerifyClientCert
			}
			return cfg, nil
		},
	}
}

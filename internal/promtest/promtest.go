// Package promtest runs a real Prometheus server (Debian's `prometheus`
// package) on loopback for integration tests, scraping targets the test
// serves. Tests skip when the binary is missing, unless ARTT_REQUIRE_COMPONENTS
// is set (as .ci/run sets it), in which case they fail.
package promtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Binary returns the prometheus binary to run: $PROMETHEUS_BIN or
// `prometheus` on PATH, and an error with ARTT_SKIP_COMPONENTS set (make
// check, the fast lane, runs only what needs no real component).
func Binary() (string, error) {
	if os.Getenv("ARTT_SKIP_COMPONENTS") != "" {
		return "", errors.New("ARTT_SKIP_COMPONENTS is set: tests needing Prometheus are left to make test")
	}
	if b := os.Getenv("PROMETHEUS_BIN"); b != "" {
		return b, nil
	}
	return exec.LookPath("prometheus")
}

// Required reports whether missing real components must fail tests rather
// than skip them.
func Required() bool { return os.Getenv("ARTT_REQUIRE_COMPONENTS") != "" }

// Server is a running Prometheus.
type Server struct {
	// URL is the base URL of its HTTP API, e.g. http://127.0.0.1:41234.
	URL string

	bin, dir, addr string
	cmd            *exec.Cmd
	exited         chan struct{}
}

// rulesFile is the rules file every configuration loads: no groups until
// LoadRules writes some.
const rulesFile = "rules.yml"

// Start writes a configuration that scrapes targets (host:port) and
// evaluates rules every scrapeInterval and starts Prometheus on a free
// loopback port with its storage in dir. It returns once /-/ready answers.
func Start(dir string, targets []string, scrapeInterval time.Duration) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, fmt.Errorf("prometheus binary not found (apt-get install prometheus, or set PROMETHEUS_BIN): %w", err)
	}
	addr, err := freeAddress()
	if err != nil {
		return nil, err
	}
	quoted := make([]string, len(targets))
	for i, t := range targets {
		quoted[i] = fmt.Sprintf("%q", t)
	}
	cfg := fmt.Sprintf(`global:
  scrape_interval: %s
  evaluation_interval: %s
scrape_configs:
  - job_name: test
    scrape_interval: %s
    scrape_timeout: %s
    static_configs:
      - targets: [%s]
rule_files: [%s]
`, scrapeInterval, scrapeInterval, scrapeInterval, scrapeInterval, strings.Join(quoted, ", "), rulesFile)
	if err := os.WriteFile(filepath.Join(dir, rulesFile), []byte("groups: []\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, bin: bin, dir: dir, addr: addr}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (s *Server) start() error {
	s.cmd = exec.Command(s.bin,
		"--config.file="+filepath.Join(s.dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(s.dir, "data"),
		"--web.listen-address="+s.addr,
		"--web.enable-lifecycle",
		"--log.level=warn",
	)
	logFile, err := os.OpenFile(filepath.Join(s.dir, "prometheus.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.exited = make(chan struct{})
	go func() { _ = s.cmd.Wait(); logFile.Close(); close(s.exited) }()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "prometheus.log"))
			return fmt.Errorf("prometheus exited at start: %s", log)
		case <-ctx.Done():
			_ = s.Stop()
			return errors.New("prometheus not ready after 60s")
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
}

// Stop terminates Prometheus and waits for it to exit. Its data stays in dir.
func (s *Server) Stop() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	select {
	case <-s.exited:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	return nil
}

// Restart starts Prometheus again on the same address and storage.
func (s *Server) Restart() error {
	if err := s.Stop(); err != nil {
		return err
	}
	return s.start()
}

// CPUSeconds is the server's own process_cpu_seconds_total, from its
// /metrics.
func (s *Server) CPUSeconds() (float64, error) {
	return ProcessCPUSeconds(http.DefaultClient, s.URL+"/metrics")
}

// ProcessCPUSeconds reads process_cpu_seconds_total from a Prometheus
// exposition at metricsURL: Prometheus, kube-apiserver and etcd all export
// their own process's CPU there.
func ProcessCPUSeconds(c *http.Client, metricsURL string) (float64, error) {
	resp, err := c.Get(metricsURL)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", metricsURL, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_cpu_seconds_total "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", metricsURL, err)
	}
	return 0, fmt.Errorf("%s reports no process_cpu_seconds_total", metricsURL)
}

// LoadRules replaces the rules (Prometheus' own rules-file format, not a
// PrometheusRule object) and has the running server reload them.
func (s *Server) LoadRules(rules string) error {
	if err := os.WriteFile(filepath.Join(s.dir, rulesFile), []byte(rules), 0o644); err != nil {
		return err
	}
	resp, err := http.Post(s.URL+"/-/reload", "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("reload: %s: %s", resp.Status, body)
	}
	return nil
}

// WaitForSamples waits until every series of selector has at least n samples
// in the last minute.
func (s *Server) WaitForSamples(selector string, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	q := url.Values{"query": {fmt.Sprintf("min(count_over_time(%s[1m])) >= %d", selector, n)}}
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL + "/api/v1/query?" + q.Encode())
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			// A non-empty result means the comparison held.
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"value"`) {
				return nil
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("no %d samples of %s within %s", n, selector, timeout)
}

// StartWithExporter serves exp on loopback, starts Prometheus scraping it
// every scrapeInterval, and waits until waitSelector has minSamples samples.
// The returned stop function stops both.
func StartWithExporter(dir string, exp http.Handler, scrapeInterval time.Duration, waitSelector string, minSamples int) (*Server, func(), error) {
	if e, ok := exp.(*Exporter); ok {
		e.StampEvery(scrapeInterval)
	}
	ts := httptest.NewServer(exp)
	s, err := Start(dir, []string{strings.TrimPrefix(ts.URL, "http://")}, scrapeInterval)
	if err != nil {
		ts.Close()
		return nil, nil, err
	}
	stop := func() { _ = s.Stop(); ts.Close() }
	if err := s.WaitForSamples(waitSelector, minSamples, 60*time.Second); err != nil {
		stop()
		return nil, nil, err
	}
	return s, stop, nil
}

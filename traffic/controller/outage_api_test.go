package controller

import (
	"io"
	"net"
	"net/url"
	"reflect"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// apiProxy passes TCP through to the kube-apiserver. Stopping it closes
// every connection and refuses new ones, which is what a client sees of an
// apiserver that goes down; starting it again on the same address is the
// apiserver coming back.
type apiProxy struct {
	target, addr string
	mu           sync.Mutex
	lis          net.Listener
	conns        []net.Conn
}

func newAPIProxy(t *testing.T, target string) *apiProxy {
	t.Helper()
	p := &apiProxy{target: target}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = lis.Addr().String()
	p.serve(lis)
	t.Cleanup(p.stop)
	return p
}

func (p *apiProxy) serve(lis net.Listener) {
	p.mu.Lock()
	p.lis = lis
	p.mu.Unlock()
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
}

func (p *apiProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lis != nil {
		p.lis.Close()
		p.lis = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *apiProxy) start(t *testing.T) {
	t.Helper()
	lis, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.serve(lis)
}

// The kube-apiserver goes away while artt-traffic is about to write new
// weights, and comes back 5 s later. Meanwhile the rule keeps the last
// complete routing (a server-side apply is one request: never half a
// rule), and after the return ARTT converges to the weights it wanted,
// without a restart.
func TestAPIServerOutageMidRun(t *testing.T) {
	needCluster(t)
	createApp(t, "apiout")
	proxy := newAPIProxy(t, hostPort(t, cfg.Host))
	via := rest.CopyConfig(cfg)
	via.Host = "https://" + proxy.addr
	in := start(t, instanceOptions{restConfig: via, writeConfig: via, interval: time.Second})
	waitFor(t, 20*time.Second, "ARTT's rule written", func() bool {
		dr, err := getRule("apiout", "artt-backend")
		return err == nil && len(distribution(dr)) == 3
	})
	before, err := getRule("apiout", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}

	proxy.stop()
	failedBefore := counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "failed"})
	exporter.Set(clusterSeries(map[string]float64{"apiout/backend-n2": 3}, testNamespaces...))
	defer exporter.Set(clusterSeries(nil, testNamespaces...))
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		// The test reads the apiserver directly: the rule stays whole.
		dr, err := getRule("apiout", "artt-backend")
		if err != nil {
			t.Fatal(err)
		}
		if d := distribution(dr); !reflect.DeepEqual(d, distribution(before)) {
			t.Fatalf("the rule changed while artt-traffic could not reach the apiserver: %v", d)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if failed := counter(t, in.reg, "artt_traffic_destinationrule_writes_total", map[string]string{"result": "failed"}); failed <= failedBefore {
		t.Error("no write was attempted during the outage: the test did not exercise a write against a missing apiserver")
	}

	proxy.start(t)
	took := waitFor(t, 60*time.Second, "ARTT's new weights after the apiserver came back", func() bool {
		dr, err := getRule("apiout", "artt-backend")
		return err == nil && len(distribution(dr)) == 3 && !reflect.DeepEqual(distribution(dr), distribution(before))
	})
	t.Logf("converged %s after the apiserver came back", took.Round(time.Millisecond))
	dr, err := getRule("apiout", "artt-backend")
	if err != nil {
		t.Fatal(err)
	}
	validIstio(t, dr)
}

func hostPort(t *testing.T, host string) string {
	t.Helper()
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		t.Fatalf("apiserver address %q: %v", host, err)
	}
	return u.Host
}

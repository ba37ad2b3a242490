package testcluster

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Istiod is istiod (pilot-discovery) running against a test's
// kube-apiserver.
type Istiod struct {
	// XDSAddr is its plaintext gRPC (ADS) address, HTTPAddr the one of
	// /ready and its debug pages.
	XDSAddr, HTTPAddr string

	binary, dir, mesh, kubeconfig string
	others                        []string // its secure gRPC, HTTPS and monitoring addresses
	stop                          func()
}

// StartIstiod runs the pilot-discovery in binDir (as hack/build-istiod.sh
// leaves it) against the cluster of kubeconfig, on free loopback ports,
// with its log in dir/istiod.log, and waits until it serves. The
// environment is what istiod needs outside a cluster: who it is, no
// webhooks to patch, no leader election (shared/INFRA.md's item on
// istiod). Namespace istio-system must exist: istiod keeps its CA there.
func StartIstiod(ctx context.Context, binDir, dir, kubeconfig string) (*Istiod, error) {
	mesh := filepath.Join(dir, "mesh.yaml")
	if err := os.WriteFile(mesh, []byte("rootNamespace: istio-system\ntrustDomain: cluster.local\n"), 0o644); err != nil {
		return nil, err
	}
	i := &Istiod{XDSAddr: FreeAddress(), HTTPAddr: FreeAddress(), binary: filepath.Join(binDir, "pilot-discovery"),
		dir: dir, mesh: mesh, kubeconfig: kubeconfig, others: []string{FreeAddress(), FreeAddress(), FreeAddress()}}
	return i, i.Start(ctx)
}

// Start starts istiod again on the same addresses, after Stop, and waits
// until it serves.
func (i *Istiod) Start(ctx context.Context) error {
	stop, err := StartProcess(ctx, i.dir, "istiod", i.binary,
		[]string{"POD_NAMESPACE=istio-system", "POD_NAME=istiod", "REVISION=default",
			"INJECTION_WEBHOOK_CONFIG_NAME=", "VALIDATION_WEBHOOK_CONFIG_NAME=", "PILOT_ENABLE_ANALYSIS=false",
			"ENABLE_LEADER_ELECTION=false", "PILOT_ENABLE_GATEWAY_API=false", "CLUSTER_ID=Kubernetes", "ISTIOD_CUSTOM_HOST=localhost"},
		"discovery", "--kubeconfig="+i.kubeconfig, "--meshConfig="+i.mesh, "--networksConfig=/nonexistent",
		"--httpAddr="+i.HTTPAddr, "--grpcAddr="+i.XDSAddr, "--secureGRPCAddr="+i.others[0],
		"--httpsAddr="+i.others[1], "--monitoringAddr="+i.others[2], "--domain=cluster.local")
	i.stop = stop
	if err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + i.HTTPAddr + "/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("istiod not ready within 60s (log %s)", filepath.Join(i.dir, "istiod.log"))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop stops istiod (an interrupt, then up to 5 s).
func (i *Istiod) Stop() {
	if i.stop != nil {
		i.stop()
		i.stop = nil
	}
}

package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/loadtest/live/backend"
)

// kubelet plays the node agent for every node: it runs each pod as a
// process of this program (RoleEnv) on the pod's address, inside the pod's
// cgroups, and reports the pod Running and Ready once it listens.
type kubelet struct {
	cluster  *Cluster
	cgroups  *Cgroups
	exe      string
	dir      string // logs
	scenario string // what the processes load: a built-in name or a file
	mu       sync.Mutex
	procs    map[string]*process // by namespace/pod
	// final is the CPU seconds of each pod stopped, read before its
	// cgroup went.
	final map[string]float64
	// speeds are the nodes slowed mid-run (node-slowdown), by name.
	speeds map[string]float64
}

type process struct {
	cmd       *exec.Cmd
	node, pod string
	ns, ip    string
	listening bool // a backend once it answers: setNodeSpeed reaches it
	cpuacct   string
	exited    chan struct{}
}

// bootstrap is gRPC's xDS bootstrap for a pod: istiod as the server, and a
// node id and metadata from which istiod finds the pod and so its node's
// locality (GENERATOR selects istiod's gRPC generator; without NAMESPACE
// istiod finds no pod and the split is silently even).
func (k *kubelet) bootstrap(ns, pod, ip, workload string) (string, error) {
	b, err := json.Marshal(map[string]any{
		"xds_servers": []any{map[string]any{"server_uri": k.cluster.Istiod.XDSAddr,
			"channel_creds": []any{map[string]any{"type": "insecure"}}, "server_features": []string{"xds_v3"}}},
		"node": map[string]any{
			"id": fmt.Sprintf("sidecar~%s~%s.%s~%s.svc.cluster.local", ip, pod, ns, ns),
			"metadata": map[string]any{"GENERATOR": "grpc", "NAMESPACE": ns, "INSTANCE_IPS": ip, "CLUSTER_ID": "Kubernetes",
				"NAME": pod, "LABELS": map[string]string{"app": workload}},
		},
	})
	return string(b), err
}

// podStart is a pod for the kubelet to run: its object's fields, the part
// its process plays (RoleEnv) and that role's flags.
type podStart struct {
	ns, name, workload, node, ip string
	limit, request               float64
	role                         string
	args                         []string
}

// startPod creates a pod's object and runs it (runPod), Ready as soon as
// it listens.
func (k *kubelet) startPod(ctx context.Context, s podStart) (io.Reader, error) {
	pod, err := createPod(ctx, k.cluster, s)
	if err != nil {
		return nil, err
	}
	return k.runPod(ctx, s, pod, time.Time{})
}

// runPod gives a pod bound to its node its address and cgroups, starts its
// process, and marks it Ready once it listens on its gRPC port (role
// backend) or starts (loadgen, whose stdout is returned), and not before
// readyAt (its startup, for a pod an autoscaler added).
func (k *kubelet) runPod(ctx context.Context, s podStart, pod *corev1.Pod, readyAt time.Time) (io.Reader, error) {
	ns, name, node, ip, limit, role := s.ns, s.name, s.node, s.ip, s.limit, s.role
	if err := addAddress(ip); err != nil {
		return nil, err
	}
	// The gateway is not a node's workload: the lab's costs its node
	// nothing, so the generator runs outside every node's quota.
	var cg PodCgroups
	var err error
	if role == "backend" {
		if cg, err = k.cgroups.AddPod(node, name, limit); err != nil {
			return nil, err
		}
	}
	boot, err := k.bootstrap(ns, name, ip, s.workload)
	if err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(k.dir, ns+"-"+name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	common := []string{"--scenario=" + k.scenario, "--namespace=" + ns, "--pod=" + name, "--node=" + node, "--ip=" + ip}
	speed := 0.0
	if role == "backend" {
		speed = k.speedOf(node)
		common = append(common, "--limit="+strconv.FormatFloat(limit, 'g', -1, 64), "--cpuacct="+cg.WorkAcct, "--server-cpuacct="+cg.ServerAcct,
			"--work-cgroups="+strings.Join(cg.Work, ","), "--server-cgroups="+strings.Join(cg.Server, ","),
			"--speed="+strconv.FormatFloat(speed, 'g', -1, 64))
	}
	cmd := exec.CommandContext(ctx, k.exe, append(common, s.args...)...)
	cmd.Env = append(os.Environ(), RoleEnv+"="+role, "GRPC_XDS_BOOTSTRAP_CONFIG="+boot)
	cmd.Stderr = log
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stdout io.Reader
	if role == "loadgen" {
		if stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	} else {
		cmd.Stdout = log
	}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{cmd: cmd, node: node, pod: name, ns: ns, ip: ip, cpuacct: cg.WorkAcct, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); log.Close(); close(p.exited) }()
	k.mu.Lock()
	k.procs[ns+"/"+name] = p
	k.mu.Unlock()
	if role == "backend" {
		if err := waitListening(ctx, net.JoinHostPort(ip, strconv.Itoa(backend.Port)), p.exited); err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w (log %s)", ns, name, err, log.Name())
		}
		k.mu.Lock()
		p.listening = true
		now := k.speeds[node]
		k.mu.Unlock()
		if now != speed {
			// The node's speed changed while the pod started.
			if err := putSpeed(ctx, ip, now); err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", ns, name, err)
			}
		}
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(time.Until(readyAt)):
	}
	return stdout, markRunning(ctx, k.cluster, pod, ip)
}

// waitListening waits until addr accepts a connection, the process exits,
// or 30 s pass.
func waitListening(ctx context.Context, addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("exited before it listened")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on %s within 30s", addr)
		}
	}
}

// stopPod deletes a pod's object (the EndpointSlice controller then drops
// its endpoint), stops its process, and removes its cgroups.
func (k *kubelet) stopPod(ctx context.Context, ns, name string) error {
	k.mu.Lock()
	p := k.procs[ns+"/"+name]
	delete(k.procs, ns+"/"+name)
	k.mu.Unlock()
	// No kubelet confirms a graceful deletion here: the pod goes at once.
	err := client.IgnoreNotFound(k.cluster.Client.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}, client.GracePeriodSeconds(0)))
	if p == nil {
		return err
	}
	stopErr := p.stop()
	if v, readErr := backend.ReadCPUAcct(p.cpuacct); readErr == nil {
		k.mu.Lock()
		k.final[ns+"/"+name] = v
		k.mu.Unlock()
	}
	if p.cpuacct == "" {
		return errors.Join(err, stopErr)
	}
	return errors.Join(err, stopErr, k.cgroups.RemovePod(p.node, p.pod))
}

// cpuSeconds is a pod's CPU time so far: its cgroup's counter while it
// runs, its last reading once stopped.
func (k *kubelet) cpuSeconds(ns, name string) (float64, error) {
	k.mu.Lock()
	p, running := k.procs[ns+"/"+name]
	final, stopped := k.final[ns+"/"+name]
	k.mu.Unlock()
	switch {
	case running:
		return backend.ReadCPUAcct(p.cpuacct)
	case stopped:
		return final, nil
	}
	return 0, fmt.Errorf("pod %s/%s never ran", ns, name)
}

// stop interrupts the process and waits for it, killing it after 5 s.
func (p *process) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	return nil
}

// stopAll stops every process of a namespace, or of all when ns is "".
func (k *kubelet) stopAll(ctx context.Context, ns string) error {
	k.mu.Lock()
	var names [][2]string
	for _, p := range k.procs {
		if ns == "" || p.ns == ns {
			names = append(names, [2]string{p.ns, p.pod})
		}
	}
	k.mu.Unlock()
	var errs []error
	for _, n := range names {
		errs = append(errs, k.stopPod(ctx, n[0], n[1]))
	}
	return errors.Join(errs...)
}

// progressLines decodes the load generator's JSON lines into f until its
// stdout closes.
func progressLines(r io.Reader, f func(genStatus)) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var p genStatus
		if json.Unmarshal(sc.Bytes(), &p) == nil {
			f(p)
		}
	}
}

// running reports whether a pod's process runs.
func (k *kubelet) running(ns, name string) bool {
	k.mu.Lock()
	p, ok := k.procs[ns+"/"+name]
	k.mu.Unlock()
	if !ok {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// deletePod deletes a pod's object at once and stops its process after
// grace, in the background.
func (k *kubelet) deletePod(ctx context.Context, ns, name string, grace time.Duration) error {
	err := client.IgnoreNotFound(k.cluster.Client.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}, client.GracePeriodSeconds(0)))
	if err != nil {
		return err
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-time.After(grace):
		}
		_ = k.stopPod(context.Background(), ns, name)
	}()
	return nil
}

// kill sends a pod's process SIGKILL and leaves everything else as it is.
func (k *kubelet) kill(ns, name string) error {
	k.mu.Lock()
	p := k.procs[ns+"/"+name]
	k.mu.Unlock()
	if p == nil {
		return fmt.Errorf("pod %s/%s is not running", ns, name)
	}
	return p.cmd.Process.Kill()
}

package live

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/artt-dev/artt/loadtest/live/backend"
)

// The cgroup v1 hierarchies the live loop uses (shared/INFRA.md): cpu for
// the quotas, cpuacct for each pod's CPU counter.
var (
	cpuRoot     = "/sys/fs/cgroup/cpu"
	cpuacctRoot = "/sys/fs/cgroup/cpuacct"
)

// Cgroups are a live run's CPU cgroups: one per node under cpu/NAME, whose
// quota is the node's cores, and one per pod inside its node's, whose
// quota is the pod's limit, as the kubelet nests a pod's cgroup in its
// node's; and one per pod under cpuacct/NAME for its CPU counter.
//
// A pod's cgroups hold only the threads that spend its requests' work. The
// rest of its server (gRPC, HTTP/2, the metrics, the Go runtime's
// scheduling) runs in cpu/NAME/servers, outside every quota, with a
// counter of its own per pod (cpuacct/NAME/NODE-POD-server). On this
// machine that part costs one to three milliseconds of CPU per request,
// as much as the scenarios' work and far more than on a cluster's cores;
// inside the pod's quota it would take the work's place on the request's
// path, and the pod would answer as one with a fraction of its work.
type Cgroups struct {
	name   string
	limits map[string]float64 // per node/pod: the quota asked, in cores
	nodes  map[string]float64
}

// CheckCgroups reports whether this machine can give the live loop its
// cgroups: cgroup v1's cpu and cpuacct controllers, writable.
func CheckCgroups() error {
	for _, root := range []string{cpuRoot, cpuacctRoot} {
		if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
			return fmt.Errorf("cgroup v1 controller at %s: %w (the live loop needs cgroup v1's cpu and cpuacct, and root)", root, err)
		}
	}
	return nil
}

// NewCgroups creates the run's two top cgroups, and the servers' cgroup
// under the cpu one.
func NewCgroups(name string) (*Cgroups, error) {
	c := &Cgroups{name: name, limits: map[string]float64{}, nodes: map[string]float64{}}
	for _, dir := range []string{filepath.Join(cpuRoot, name), filepath.Join(cpuacctRoot, name), c.serversDir()} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup %s: %w", dir, err)
		}
	}
	return c, nil
}

// PodCgroups are where a pod's threads go, and each part's cpuacct.usage
// file.
type PodCgroups struct {
	backend.Cgroups
	WorkAcct, ServerAcct string
}

// AddNode creates a node's cgroup with its cores as quota.
func (c *Cgroups) AddNode(node string, cores float64) error {
	if err := os.Mkdir(c.cpuDir(node, ""), 0o755); err != nil {
		return err
	}
	c.nodes[node] = cores
	return writeQuota(c.cpuDir(node, ""), cores)
}

// AddPod creates a pod's cgroups. A pod's quota cannot exceed its node's
// (the kernel refuses it), so a limit past the node's cores is the node's.
// The pod's process joins them itself (package backend), as it starts.
func (c *Cgroups) AddPod(node, pod string, limit float64) (PodCgroups, error) {
	dir := c.cpuDir(node, pod)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return PodCgroups{}, err
	}
	c.limits[node+"/"+pod] = limit
	if err := writeQuota(dir, math.Min(limit, c.nodes[node])); err != nil {
		return PodCgroups{}, err
	}
	work, server := c.acctDir(node, pod), c.acctDir(node, pod)+"-server"
	for _, acct := range []string{work, server} {
		if err := os.Mkdir(acct, 0o755); err != nil {
			return PodCgroups{}, err
		}
	}
	return PodCgroups{Cgroups: backend.Cgroups{Work: []string{dir, work}, Server: []string{c.serversDir(), server}},
		WorkAcct: filepath.Join(work, "cpuacct.usage"), ServerAcct: filepath.Join(server, "cpuacct.usage")}, nil
}

// SetNodeCores changes a node's quota, as a node degrades or recovers: its
// pods' quotas are clamped first when it shrinks, and raised back to
// their limits after when it grows.
func (c *Cgroups) SetNodeCores(node string, cores float64) error {
	shrinking := cores < c.nodes[node]
	c.nodes[node] = cores
	if shrinking {
		if err := c.clampPods(node, cores); err != nil {
			return err
		}
		return writeQuota(c.cpuDir(node, ""), cores)
	}
	if err := writeQuota(c.cpuDir(node, ""), cores); err != nil {
		return err
	}
	return c.clampPods(node, cores)
}

func (c *Cgroups) clampPods(node string, cores float64) error {
	entries, err := os.ReadDir(c.cpuDir(node, ""))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if limit, ok := c.limits[node+"/"+e.Name()]; ok && e.IsDir() {
			if err := writeQuota(c.cpuDir(node, e.Name()), math.Min(limit, cores)); err != nil {
				return err
			}
		}
	}
	return nil
}

// RemovePod removes a pod's cgroups once its process has exited.
func (c *Cgroups) RemovePod(node, pod string) error {
	delete(c.limits, node+"/"+pod)
	return errors.Join(os.Remove(c.cpuDir(node, pod)), os.Remove(c.acctDir(node, pod)), os.Remove(c.acctDir(node, pod)+"-server"))
}

// Remove removes every cgroup left, deepest first. Cgroups still holding a
// process stay, and are named in the error.
func (c *Cgroups) Remove() error {
	var errs []error
	for _, root := range []string{cpuRoot, cpuacctRoot} {
		top := filepath.Join(root, c.name)
		subs, _ := filepath.Glob(filepath.Join(top, "*", "*"))
		nodes, _ := filepath.Glob(filepath.Join(top, "*"))
		for _, dir := range append(subs, nodes...) {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				errs = append(errs, os.Remove(dir))
			}
		}
		errs = append(errs, os.Remove(top))
	}
	return errors.Join(errs...)
}

func (c *Cgroups) cpuDir(node, pod string) string {
	return filepath.Join(cpuRoot, c.name, node, pod)
}

func (c *Cgroups) acctDir(node, pod string) string {
	return filepath.Join(cpuacctRoot, c.name, node+"-"+pod)
}

func (c *Cgroups) serversDir() string { return filepath.Join(cpuRoot, c.name, "servers") }

// writeQuota limits a cgroup to cores (see cfs). The quota is unset
// first: the kernel checks each write against the other value, and a
// shorter period under the old quota can be refused.
func writeQuota(dir string, cores float64) error {
	period, quota := cfs(cores)
	for _, w := range []struct {
		file  string
		value int64
	}{{"cpu.cfs_quota_us", -1}, {"cpu.cfs_period_us", period}, {"cpu.cfs_quota_us", quota}} {
		if err := os.WriteFile(filepath.Join(dir, w.file), []byte(strconv.FormatInt(w.value, 10)), 0o644); err != nil {
			return fmt.Errorf("%s = %d: %w", filepath.Join(dir, w.file), w.value, err)
		}
	}
	return nil
}

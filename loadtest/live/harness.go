package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/loadtest/live/backend"
)

// Options tune the harness.
type Options struct {
	// Dir holds the components' logs and each run's records.
	Dir    string
	Assets Assets
	// Progress shows what the harness is doing (nil: nothing shown).
	Progress *Progress
}

// Harness is a started live loop: the control plane, the nodes and their
// cgroups, ready to carry runs one after another.
type Harness struct {
	Plan    *Plan
	Cluster *Cluster
	opts    Options
	cgroups *Cgroups
	kubelet *kubelet
	// runs counts the runs carried, which name their namespaces.
	runs int
}

// Start starts the control plane and creates the nodes. Call it inside the
// harness's own network namespace (ReexecInNamespace).
func Start(ctx context.Context, p *Plan, opts Options) (*Harness, error) {
	if err := errors.Join(opts.Assets.Check(), CheckCgroups(), backend.CheckClock()); err != nil {
		return nil, err
	}
	if err := SetUpLoopback(); err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := logControllerRuntime(opts.Dir); err != nil {
		return nil, err
	}
	h := &Harness{Plan: p, opts: opts}
	h.opts.Progress.Phase("starting the control plane (kube-apiserver, etcd, kube-controller-manager, istiod, Prometheus)")
	sc := p.Scenario
	h.Cluster, err = StartCluster(ctx, opts.Assets, opts.Dir, ClusterConfig{Targets: h.targets(), Probes: probeSeries(p),
		Scrape: sc.Control.SampleInterval.Duration, Autoscale: slices.ContainsFunc(p.Runs, Autoscaled), HPASync: sc.Control.HPASyncPeriod.Duration})
	if err != nil {
		h.Close()
		return nil, err
	}
	if err := createNodes(ctx, h.Cluster, p); err != nil {
		h.Close()
		return nil, err
	}
	if h.cgroups, err = NewCgroups(fmt.Sprintf("artt-live-%d", os.Getpid())); err != nil {
		h.Close()
		return nil, err
	}
	for _, n := range sc.Cluster.Nodes {
		if err := h.cgroups.AddNode(n.Name, n.Cores); err != nil {
			h.Close()
			return nil, err
		}
	}
	h.kubelet = &kubelet{cluster: h.Cluster, cgroups: h.cgroups, exe: exe, dir: opts.Dir, scenario: p.Source, procs: map[string]*process{}, final: map[string]float64{}, speeds: map[string]float64{}}
	return h, nil
}

// targets are the metrics addresses of every run's pods (and of the
// slots kept for the autoscaled components' pods) and gateway: Prometheus
// scrapes them all from the start, a pod's only while it runs.
func (h *Harness) targets() []string {
	var out []string
	for i := range h.Plan.Runs {
		for _, pod := range h.Plan.Pods {
			out = append(out, fmt.Sprintf("%s:%d", podIP(i, pod.Index), backend.MetricsPort))
		}
		for _, s := range h.Plan.Scaled {
			for _, slot := range s.Slots {
				out = append(out, fmt.Sprintf("%s:%d", podIP(i, slot), backend.MetricsPort))
			}
		}
		out = append(out, fmt.Sprintf("%s:%d", podIP(i, ingressIndex), backend.MetricsPort))
	}
	return out
}

// probeSeries are the emulated network's round trips between nodes, as
// the blackbox exporter's probe_duration_seconds reports them to
// artt-traffic: twice the scenario's one-way delay.
func probeSeries(p *Plan) []promtest.Series {
	m := p.Scenario.Cluster.DelayMatrix()
	var out []promtest.Series
	for i, a := range p.Scenario.Cluster.Nodes {
		for j, b := range p.Scenario.Cluster.Nodes {
			if i != j {
				out = append(out, promtest.Series{Name: "probe_duration_seconds",
					Labels: fmt.Sprintf(`source_node=%q,target_node=%q`, a.Name, b.Name), Value: 2 * m[i][j] / 1000})
			}
		}
	}
	return out
}

// Close stops every process and component and removes the cgroups. The
// logs stay in Dir.
func (h *Harness) Close() error {
	var errs []error
	if h.kubelet != nil {
		errs = append(errs, h.kubelet.stopAll(context.Background(), ""))
	}
	if h.Cluster != nil {
		h.Cluster.Stop()
	}
	if h.cgroups != nil {
		errs = append(errs, h.cgroups.Remove())
	}
	return errors.Join(errs...)
}

// logControllerRuntime sends controller-runtime's own log, which
// artt-traffic's manager writes to, into dir/controller-runtime.log.
func logControllerRuntime(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, "controller-runtime.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewJSONHandler(f, nil)))
	return nil
}

package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/artt-dev/artt/traffic/allocate"
	"github.com/artt-dev/artt/traffic/controller"
)

// leaseDuration is artt-traffic's default (--lease-duration), and its
// renewal deadline two thirds of it, as cmd/artt-traffic sets them.
const leaseDuration = 15 * time.Second

// trafficSet is artt-traffic as a user deploys it: two replicas electing
// a leader on a Lease in the run's namespace, each the controller
// cmd/artt-traffic runs with its default queries, every trafficCycle, and
// its fast path at every scrape (as the lab's). Only the leader writes.
type trafficSet struct {
	cluster       *Cluster
	policy, ns    string
	cycle, scrape time.Duration
	log           *os.File
	mu            sync.Mutex
	replicas      []*trafficReplica
}

type trafficReplica struct {
	mgr    manager.Manager
	cancel func()
	done   chan error
}

// startTraffic starts two replicas. Their log is dir/artt-traffic-NS.log.
// The delay query reads the harness's probe series, which carry no
// blackbox job.
func startTraffic(ctx context.Context, c *Cluster, policy, dir, ns string, cycle, scrape time.Duration) (*trafficSet, error) {
	log, err := os.OpenFile(filepath.Join(dir, "artt-traffic-"+ns+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	s := &trafficSet{cluster: c, policy: policy, ns: ns, cycle: cycle, scrape: scrape, log: log}
	for range 2 {
		if err := s.startReplica(ctx); err != nil {
			s.Stop()
			return nil, err
		}
	}
	return s, nil
}

func (s *trafficSet) startReplica(ctx context.Context) error {
	sch, err := controller.Scheme()
	if err != nil {
		return err
	}
	cacheOpts, err := controller.CacheOptions()
	if err != nil {
		return err
	}
	lease, renew := leaseDuration, leaseDuration*2/3
	mgr, err := ctrl.NewManager(s.cluster.Config, ctrl.Options{Scheme: sch, Cache: cacheOpts,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		LeaderElection: true, LeaderElectionID: "artt-traffic", LeaderElectionNamespace: s.ns,
		LeaseDuration: &lease, RenewDeadline: &renew})
	if err != nil {
		return err
	}
	pc, err := api.NewClient(api.Config{Address: s.cluster.Prom.URL})
	if err != nil {
		return err
	}
	q := controller.DefaultQueries()
	q.Delay = `avg by (source_node, target_node) (probe_duration_seconds) * 1000 / 2`
	ctl, err := controller.New(mgr.GetClient(), mgr.GetCache(), s.cluster.Istio, controller.Options{
		Interval: s.cycle, ProtectInterval: s.scrape, Policy: s.policy, Allocate: allocate.DefaultOptions(),
		DataPlane: controller.DataPlaneGRPC,
		Collector: controller.Collector{Client: pc, Queries: q, Timeout: s.scrape},
	}, prometheus.NewRegistry(), slog.New(slog.NewJSONHandler(s.log, nil)))
	if err != nil {
		return err
	}
	if err := mgr.Add(ctl); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &trafficReplica{mgr: mgr, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	s.mu.Lock()
	s.replicas = append(s.replicas, r)
	s.mu.Unlock()
	return nil
}

// elected is the replica that holds the lease, or nil.
func (s *trafficSet) elected() *trafficReplica {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.replicas {
		select {
		case <-r.mgr.Elected():
			return r
		default:
		}
	}
	return nil
}

// changeLeader stops the leader as a crash would (it does not give up the
// lease, which the other replica takes when it expires), starts a
// replacement replica, and returns how long no replica led.
func (s *trafficSet) changeLeader(ctx context.Context) (time.Duration, error) {
	old := s.elected()
	if old == nil {
		return 0, errors.New("no artt-traffic replica leads")
	}
	s.mu.Lock()
	for i, r := range s.replicas {
		if r == old {
			s.replicas = append(s.replicas[:i], s.replicas[i+1:]...)
		}
	}
	s.mu.Unlock()
	stopped := time.Now()
	old.cancel()
	<-old.done
	if err := s.startReplica(ctx); err != nil {
		return 0, err
	}
	deadline := time.Now().Add(3 * leaseDuration)
	for s.elected() == nil {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no artt-traffic replica elected %s after the leader stopped", 3*leaseDuration)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return time.Since(stopped), nil
}

// Stop stops every replica.
func (s *trafficSet) Stop() {
	s.mu.Lock()
	rs := s.replicas
	s.replicas = nil
	s.mu.Unlock()
	for _, r := range rs {
		r.cancel()
		<-r.done
	}
	s.log.Close()
}

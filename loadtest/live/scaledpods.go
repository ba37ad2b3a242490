package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// RunPod is a pod of a run and its life. A pod the harness placed itself
// was created before the load and lives to the run's end unless a fault
// ends it (zero times); a pod a ReplicaSet made has its own.
type RunPod struct {
	PodSpec
	// Listed is when the harness first listed the pod, Created when it
	// started its process, Ready when it was marked Ready, Gone when its
	// process was stopped.
	Listed, Created, Ready, Gone time.Time
}

// starting reports whether a ReplicaSet's pod is not Ready yet (the
// harness's own pods were Ready before the load).
func (p RunPod) starting() bool { return !p.Created.IsZero() && p.Ready.IsZero() }

// scaledPods plays the scheduler and the kubelet for the pods the
// ReplicaSets of a run's scaled components make: it binds each new pod to
// a node as the lab's scheduler does, runs it on a free slot's address
// once bound, marks it Ready after the scenario's pod startup, and stops
// it when the ReplicaSet deletes it.
type scaledPods struct {
	h      *Harness
	ns     string
	run    int
	specs  map[string]scenario.Component // by workload
	free   map[string][]int              // free slots, by workload
	bound  map[string]int                // pods bound so far, by workload
	loaded time.Time                     // when the load began: later pods take the startup

	mu     sync.Mutex
	pods   map[string]*RunPod
	listed map[string]time.Time // by pod, when first listed
	err    error
}

func newScaledPods(h *Harness, ns string, run int, scaled []ScaledSpec) *scaledPods {
	s := &scaledPods{h: h, ns: ns, run: run, specs: map[string]scenario.Component{}, free: map[string][]int{}, bound: map[string]int{}, pods: map[string]*RunPod{}, listed: map[string]time.Time{}}
	for _, sp := range scaled {
		w := backend.ObjectName(sp.Component)
		s.free[w] = slices.Clone(sp.Slots)
		for _, c := range h.Plan.Scenario.Application.Components {
			if c.Name == sp.Component {
				s.specs[w] = c
			}
		}
	}
	return s
}

// follow acts on the run's scaled pods every 100 ms until ctx ends.
func (s *scaledPods) follow(ctx context.Context) {
	var workloads []string
	for w := range s.specs {
		workloads = append(workloads, w)
	}
	req, err := labels.NewRequirement("app", selection.In, workloads)
	if err != nil {
		s.fail(err)
		return
	}
	sel := labels.NewSelector().Add(*req)
	for {
		var list corev1.PodList
		if err := s.h.Cluster.Client.List(ctx, &list, client.InNamespace(s.ns), client.MatchingLabelsSelector{Selector: sel}); err == nil {
			s.act(ctx, list.Items)
		} else if ctx.Err() == nil {
			s.fail(fmt.Errorf("list pods: %w", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// act binds, starts and stops pods as the list says.
func (s *scaledPods) act(ctx context.Context, pods []corev1.Pod) {
	listed := map[string]bool{}
	now := time.Now()
	s.mu.Lock()
	for _, pod := range pods {
		if _, seen := s.listed[pod.Name]; !seen {
			s.listed[pod.Name] = now
		}
	}
	s.mu.Unlock()
	for i := range pods {
		pod := &pods[i]
		listed[pod.Name] = true
		switch {
		case pod.DeletionTimestamp != nil:
			s.stop(pod.Name)
		case pod.Spec.NodeName == "":
			if err := s.bind(ctx, pod); err != nil {
				s.fail(err)
			}
		default:
			s.start(ctx, pod)
		}
	}
	s.mu.Lock()
	var vanished []string
	for name, p := range s.pods {
		if !listed[name] && p.Gone.IsZero() {
			vanished = append(vanished, name)
		}
	}
	s.mu.Unlock()
	for _, name := range vanished {
		s.stop(name)
	}
}

// bind places a pod as the lab's default scheduler does: a component's
// first replicas on its placement pins, in turn; every later pod on the
// node whose requested CPU, with the pod's, is the lowest share of its
// cores (LeastAllocated), among those it fits.
func (s *scaledPods) bind(ctx context.Context, pod *corev1.Pod) error {
	w := pod.Labels["app"]
	c := s.specs[w]
	node := ""
	if n := s.bound[w]; n < c.Replicas && len(c.Placement) > 0 {
		node = c.Placement[n%len(c.Placement)]
	} else {
		var err error
		if node, err = s.leastAllocated(ctx, c.CPURequest); err != nil || node == "" {
			return err // no node fits: the pod stays pending, as with kube-scheduler
		}
	}
	b := &corev1.Binding{ObjectMeta: pod.ObjectMeta, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	b.ResourceVersion = ""
	if err := s.h.Cluster.Client.SubResource("binding").Create(ctx, pod, b); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("bind %s to %s: %w", pod.Name, node, err))
	}
	s.bound[w]++
	return nil
}

// leastAllocated is the node LeastAllocated scoring picks for a pod
// requesting request cores ("" when none fits), counting the requests of
// every pod of the run bound there and not yet gone.
func (s *scaledPods) leastAllocated(ctx context.Context, request float64) (string, error) {
	var list corev1.PodList
	if err := s.h.Cluster.Client.List(ctx, &list, client.InNamespace(s.ns)); err != nil {
		return "", err
	}
	requested := map[string]float64{}
	for _, p := range list.Items {
		for _, c := range p.Spec.Containers {
			requested[p.Spec.NodeName] += c.Resources.Requests.Cpu().AsApproximateFloat64()
		}
	}
	best, bestFrac := "", 0.0
	for _, n := range s.h.Plan.Scenario.Cluster.Nodes {
		if requested[n.Name]+request > n.Cores+1e-9 {
			continue
		}
		if frac := (requested[n.Name] + request) / n.Cores; best == "" || frac < bestFrac {
			best, bestFrac = n.Name, frac
		}
	}
	return best, nil
}

// start runs a bound pod the first time it is seen, on a free slot.
func (s *scaledPods) start(ctx context.Context, pod *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.pods[pod.Name]; known {
		return
	}
	w := pod.Labels["app"]
	if len(s.free[w]) == 0 {
		s.err = errors.Join(s.err, fmt.Errorf("pod %s: every one of %s's %d addresses is taken", pod.Name, w, s.specs[w].MaxReplicas))
		return
	}
	slot := s.free[w][0]
	s.free[w] = s.free[w][1:]
	c := s.specs[w]
	now := time.Now()
	readyAt := now
	if !s.loaded.IsZero() {
		readyAt = now.Add(s.h.Plan.Scenario.Control.PodStartup.Duration)
	}
	p := &RunPod{PodSpec: PodSpec{Name: pod.Name, Component: c.Name, Node: pod.Spec.NodeName, Index: slot, Limit: c.CPULimit, Request: c.CPURequest}, Listed: s.listed[pod.Name], Created: now}
	s.pods[pod.Name] = p
	start := podStart{ns: s.ns, name: pod.Name, workload: w, node: p.Node, ip: podIP(s.run, slot), limit: c.CPULimit, request: c.CPURequest, role: "backend",
		args: []string{"--component=" + c.Name, fmt.Sprintf("--seed=%d", s.h.Plan.Scenario.Seed)}}
	go func() {
		if _, err := s.h.kubelet.runPod(ctx, start, pod.DeepCopy(), readyAt); err != nil {
			if ctx.Err() == nil {
				s.fail(err)
			}
			return
		}
		s.mu.Lock()
		p.Ready = time.Now()
		s.mu.Unlock()
	}()
}

// stop stops a pod's process once and frees its slot.
func (s *scaledPods) stop(name string) {
	s.mu.Lock()
	p, known := s.pods[name]
	if !known || !p.Gone.IsZero() {
		s.mu.Unlock()
		return
	}
	p.Gone = time.Now()
	s.mu.Unlock()
	go func() {
		if err := s.h.kubelet.stopPod(context.Background(), s.ns, name); err != nil {
			s.fail(err)
		}
		s.mu.Lock()
		w := backend.ObjectName(p.Component)
		s.free[w] = append(s.free[w], p.Index)
		s.mu.Unlock()
	}()
}

func (s *scaledPods) fail(err error) {
	s.mu.Lock()
	s.err = errors.Join(s.err, err)
	s.mu.Unlock()
}

// loadStarted marks the load's start: every pod seen after it takes the
// scenario's startup before it is Ready.
func (s *scaledPods) loadStarted(at time.Time) {
	s.mu.Lock()
	s.loaded = at
	s.mu.Unlock()
}

// snapshot is every scaled pod seen so far, and the first error.
func (s *scaledPods) snapshot() ([]RunPod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RunPod, 0, len(s.pods))
	for _, p := range s.pods {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b RunPod) int { return a.Created.Compare(b.Created) })
	return out, s.err
}

// Package larpplugin is artt-scheduler's scheduling plugin, ARTTPlacement:
// LATA's placement stage (LARP, package placement/larp) inside
// kube-scheduler's framework. For a pod of a Deployment that uses this
// scheduler, PreScore plans the pod's application (the Deployments the
// call graph links to it) on the cluster's nodes, from the delays and calls
// artt-traffic publishes in its topology ConfigMap; Score then gives the
// full score to the nodes where the plan still has room for one of the
// Deployment's pods, and none to the others. Capacity is kube-scheduler's
// own NodeResourcesFit filter, which stays enabled: a node without room is
// never a candidate.
package larpplugin

import (
	"context"
	"fmt"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/artt-dev/artt/placement/topology"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "ARTTPlacement"

// TopologyEnv names the topology ConfigMap, namespace/name; its default is
// DefaultTopology, where artt-traffic writes it.
const (
	TopologyEnv     = "ARTT_TOPOLOGY_CONFIGMAP"
	DefaultTopology = "artt-system/artt-topology"
)

const stateKey fwk.StateKey = Name

// Plugin is ARTTPlacement.
type Plugin struct {
	handle      fwk.Handle
	topoNS      string
	topoName    string
	configMaps  corelisters.ConfigMapLister
	replicaSets appslisters.ReplicaSetLister
	deployments appslisters.DeploymentLister
}

var (
	_ fwk.PreScorePlugin = &Plugin{}
	_ fwk.ScorePlugin    = &Plugin{}
)

// New builds the plugin; kube-scheduler calls it once per profile.
func New(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	ref := os.Getenv(TopologyEnv)
	if ref == "" {
		ref = DefaultTopology
	}
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" {
		return nil, fmt.Errorf("%s = %q: want namespace/name", TopologyEnv, ref)
	}
	// The ConfigMap informer watches one namespace, so the scheduler needs
	// no cluster-wide access to ConfigMaps.
	own := informers.NewSharedInformerFactoryWithOptions(h.ClientSet(), 0, informers.WithNamespace(ns))
	p := &Plugin{
		handle: h, topoNS: ns, topoName: name,
		configMaps:  own.Core().V1().ConfigMaps().Lister(),
		replicaSets: h.SharedInformerFactory().Apps().V1().ReplicaSets().Lister(),
		deployments: h.SharedInformerFactory().Apps().V1().Deployments().Lister(),
	}
	own.Start(ctx.Done())
	own.WaitForCacheSync(ctx.Done())
	return p, nil
}

// Name is ARTTPlacement.
func (*Plugin) Name() string { return Name }

// state carries PreScore's plan to Score: how many more of the pod's
// Deployment each node should get.
type state struct{ remaining map[string]int }

func (s *state) Clone() fwk.StateData { return s }

// PreScore plans the pod's application. Pods of no Deployment, without a
// topology or whose plan fails are left to the other score plugins (Skip),
// with the reason logged.
func (p *Plugin) PreScore(ctx context.Context, cs fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	logger := klog.FromContext(ctx)
	c := p.cluster()
	key := c.deploymentOf(pod)
	if key == "" {
		return fwk.NewStatus(fwk.Skip)
	}
	cm, err := p.configMaps.ConfigMaps(p.topoNS).Get(p.topoName)
	if err != nil {
		logger.V(2).Info("no topology ConfigMap: the pod is scored without a plan", "pod", klog.KObj(pod), "configMap", p.topoNS+"/"+p.topoName, "err", err)
		return fwk.NewStatus(fwk.Skip)
	}
	top, err := topology.Parse(cm.Data)
	if err != nil {
		logger.Error(err, "topology ConfigMap has bad lines; using the good ones", "configMap", p.topoNS+"/"+p.topoName)
	}
	infos, err := p.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return fwk.AsStatus(err)
	}
	nodes := make([]node, 0, len(infos))
	for _, ni := range infos {
		n := ni.Node()
		if n == nil {
			continue
		}
		alloc := ni.GetAllocatable()
		nd := node{name: n.Name, cpu: float64(alloc.GetMilliCPU()) / 1000, memory: float64(alloc.GetMemory()), unschedulable: n.Spec.Unschedulable}
		for _, pi := range ni.GetPods() {
			nd.pods = append(nd.pods, pi.GetPod())
		}
		nodes = append(nodes, nd)
	}
	app := c.application(key, pod.Spec.SchedulerName, top)
	plan, err := c.plan(app, nodes, top)
	if err != nil {
		logger.Info("no placement plan: the pod is scored without one", "pod", klog.KObj(pod), "deployment", key, "err", err)
		return fwk.NewStatus(fwk.Skip)
	}
	cs.Write(stateKey, &state{remaining: c.remaining(plan, key, nodes)})
	return nil
}

// Score is MaxNodeScore where the plan has room left for the pod's
// Deployment, 0 elsewhere.
func (p *Plugin) Score(_ context.Context, cs fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	data, err := cs.Read(stateKey)
	if err != nil {
		return 0, nil
	}
	if data.(*state).remaining[ni.Node().Name] > 0 {
		return fwk.MaxNodeScore, nil
	}
	return 0, nil
}

// ScoreExtensions: the scores are already in [0, MaxNodeScore].
func (*Plugin) ScoreExtensions() fwk.ScoreExtensions { return nil }

// cluster reads Deployments and ReplicaSets from the scheduler's informers.
func (p *Plugin) cluster() cluster {
	return cluster{
		deploymentOf: func(pod *v1.Pod) string {
			for _, ref := range pod.OwnerReferences {
				if ref.Kind != "ReplicaSet" || ref.Controller == nil || !*ref.Controller {
					continue
				}
				rs, err := p.replicaSets.ReplicaSets(pod.Namespace).Get(ref.Name)
				if err != nil {
					return ""
				}
				for _, o := range rs.OwnerReferences {
					if o.Kind == "Deployment" && o.Controller != nil && *o.Controller {
						return pod.Namespace + "/" + o.Name
					}
				}
			}
			return ""
		},
		deployment: func(key string) (*appsv1.Deployment, bool) {
			ns, name, _ := strings.Cut(key, "/")
			d, err := p.deployments.Deployments(ns).Get(name)
			return d, err == nil
		},
	}
}

package larpplugin

import (
	"fmt"
	"math"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/placement/larp"
	"github.com/artt-dev/artt/placement/topology"
)

// node is what the planner needs of a node: its allocatable CPU (cores)
// and memory (bytes), and its pods.
type node struct {
	name                string
	cpu, memory         float64
	pods                []*v1.Pod
	unschedulable, gone bool
}

// cluster answers which Deployment owns a pod ("" for none).
type cluster struct {
	deploymentOf func(*v1.Pod) string
	deployment   func(key string) (*appsv1.Deployment, bool)
}

// application is the Deployments planned together with key
// (namespace/name): those the call graph links to it, directly or not,
// that this scheduler places (their pods name schedulerName).
func (c cluster) application(key, schedulerName string, top topology.Topology) []*appsv1.Deployment {
	linked := map[string][]string{}
	for _, call := range top.Calls {
		linked[call.From] = append(linked[call.From], call.To)
		linked[call.To] = append(linked[call.To], call.From)
	}
	seen := map[string]bool{key: true}
	queue := []string{key}
	var out []*appsv1.Deployment
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		d, ok := c.deployment(k)
		if !ok || d.Spec.Template.Spec.SchedulerName != schedulerName {
			continue
		}
		out = append(out, d)
		for _, next := range linked[k] {
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	slices.SortFunc(out, func(a, b *appsv1.Deployment) int { return strings.Compare(keyOf(a), keyOf(b)) })
	return out
}

func keyOf(d *appsv1.Deployment) string { return d.Namespace + "/" + d.Name }

// requests sums a pod template's container requests: CPU in cores, memory
// in bytes.
func requests(spec v1.PodSpec) (cpu, memory float64) {
	for _, c := range spec.Containers {
		cpu += float64(c.Resources.Requests.Cpu().MilliValue()) / 1000
		memory += float64(c.Resources.Requests.Memory().Value())
	}
	return cpu, memory
}

// plan runs LARP for an application on the nodes, whose free capacity is
// their allocatable minus what pods outside the application request (the
// application's own pods are what is being placed).
func (c cluster) plan(app []*appsv1.Deployment, nodes []node, top topology.Topology) (larp.Plan, error) {
	in := map[string]bool{}
	var p larp.Problem
	for _, d := range app {
		in[keyOf(d)] = true
		replicas := 1
		if d.Spec.Replicas != nil {
			replicas = int(*d.Spec.Replicas)
		}
		if replicas < 1 {
			continue
		}
		cpu, memory := requests(d.Spec.Template.Spec)
		p.Components = append(p.Components, larp.Component{Name: keyOf(d), Replicas: replicas, CPU: cpu, Memory: memory})
	}
	known := map[string]bool{}
	for _, n := range nodes {
		if n.unschedulable || n.gone {
			continue
		}
		cpu, memory := n.cpu, n.memory
		for _, pod := range n.pods {
			if in[c.deploymentOf(pod)] || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
				continue
			}
			pc, pm := requests(pod.Spec)
			cpu, memory = cpu-pc, memory-pm
		}
		p.Nodes = append(p.Nodes, larp.Node{Name: n.name, CPU: math.Max(0, cpu), Memory: math.Max(0, memory)})
		known[n.name] = true
	}
	for _, d := range top.Delays {
		if known[d.From] && known[d.To] {
			p.Delays = append(p.Delays, graph.Delay{From: d.From, To: d.To, Ms: d.Ms})
		}
	}
	for _, call := range top.Calls {
		if in[call.From] && in[call.To] {
			p.Calls = append(p.Calls, graph.Call{From: call.From, To: call.To, Rate: math.NaN()})
		}
	}
	if len(p.Components) == 0 {
		return larp.Plan{}, fmt.Errorf("no replicas to place")
	}
	return larp.Greedy(p)
}

// remaining is, per node, how many more pods of Deployment key the plan
// puts there than already run there (pods being deleted not counted).
func (c cluster) remaining(plan larp.Plan, key string, nodes []node) map[string]int {
	out := map[string]int{}
	for _, g := range plan.Groups {
		for _, r := range g.Replicas {
			if r.Component == key {
				out[g.Node]++
			}
		}
	}
	for _, n := range nodes {
		for _, pod := range n.pods {
			if pod.DeletionTimestamp == nil && c.deploymentOf(pod) == key {
				out[n.name]--
			}
		}
	}
	return out
}

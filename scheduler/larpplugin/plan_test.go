package larpplugin

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/placement/topology"
)

func deployment(ns, name string, replicas int32, scheduler string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: v1.PodTemplateSpec{Spec: v1.PodSpec{SchedulerName: scheduler,
			Containers: []v1.Container{{Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}}}},
	}
}

func pod(owner, node string, cpu string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: owner + "-" + node, Annotations: map[string]string{"owner": owner}},
		Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{{Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}},
	}
}

func testCluster(deps ...*appsv1.Deployment) cluster {
	byKey := map[string]*appsv1.Deployment{}
	for _, d := range deps {
		byKey[keyOf(d)] = d
	}
	return cluster{
		deploymentOf: func(p *v1.Pod) string { return p.Annotations["owner"] },
		deployment:   func(k string) (*appsv1.Deployment, bool) { d, ok := byKey[k]; return d, ok },
	}
}

func TestApplicationFollowsCallsAndTheSchedulerName(t *testing.T) {
	c := testCluster(deployment("shop", "web", 2, "artt-scheduler"), deployment("shop", "api", 2, "artt-scheduler"),
		deployment("shop", "db", 1, ""), deployment("other", "x", 1, "artt-scheduler"))
	top := topology.Topology{Calls: []topology.Call{{From: "shop/web", To: "shop/api"}, {From: "shop/api", To: "shop/db"}}}
	app := c.application("shop/api", "artt-scheduler", top)
	if len(app) != 2 || keyOf(app[0]) != "shop/api" || keyOf(app[1]) != "shop/web" {
		t.Errorf("application %v, want shop/api and shop/web (db is the default scheduler's, other/x unlinked)", app)
	}
}

// Other pods' requests take room from the plan; the application's own pods
// do not (they are what is placed); remaining counts what still has to go
// where.
func TestPlanLeavesOthersRoomAndCountsWhatRuns(t *testing.T) {
	web, api := deployment("shop", "web", 2, "s"), deployment("shop", "api", 2, "s")
	c := testCluster(web, api)
	top := topology.Topology{
		Calls:  []topology.Call{{From: "shop/web", To: "shop/api"}},
		Delays: []graph.Delay{{From: "n1", To: "n2", Ms: 1}, {From: "n2", To: "n1", Ms: 1}, {From: "n1", To: "n3", Ms: 1}, {From: "n3", To: "n1", Ms: 1}, {From: "n2", To: "n3", Ms: 9}, {From: "n3", To: "n2", Ms: 9}},
	}
	nodes := []node{
		{name: "n1", cpu: 4, memory: 1 << 33, pods: []*v1.Pod{pod("shop/web", "n1", "1")}},
		{name: "n2", cpu: 4, memory: 1 << 33, pods: []*v1.Pod{pod("batch/job", "n2", "3")}}, // 1 core left
		{name: "n3", cpu: 4, memory: 1 << 33},
	}
	plan, err := c.plan([]*appsv1.Deployment{api, web}, nodes, top)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Groups[0].Node == "n2" || plan.Groups[1].Node == "n2" {
		t.Errorf("plan %+v uses n2, where another namespace's pod leaves 1 core for a 2-core group", plan.Groups)
	}
	left := c.remaining(plan, "shop/web", nodes)
	if left["n1"] != 0 || left["n3"] != 1 {
		t.Errorf("web still to place %v, want none more on n1 (one runs there) and one on n3", left)
	}
}

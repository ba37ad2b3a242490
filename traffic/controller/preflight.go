package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/problem"
)

// Preflight checks, with the credentials artt-traffic runs with, what it
// needs of the cluster and of Prometheus: its permissions, the managed
// Deployments and their Services, their nodes' localities, the mesh of
// their namespaces, and a collection's measurements of their pods.
func Preflight(ctx context.Context, c client.Client, col *Collector, dataPlane DataPlane, now time.Time) ([]problem.Problem, error) {
	problems, err := checkPermissions(ctx, c)
	if err != nil || len(problems) > 0 {
		return problems, err // without them the rest cannot be read
	}
	var deps appsv1.DeploymentList
	if err := c.List(ctx, &deps, client.MatchingLabels{ManagedLabel: "true"}); err != nil {
		return nil, fmt.Errorf("list deployments: %w", err)
	}
	if len(deps.Items) == 0 {
		return []problem.Problem{{Object: "cluster", Wrong: "no Deployment is labelled " + ManagedLabel + "=true, so there is nothing to route",
			Remedy: "label each Deployment to route: kubectl label deployment NAME -n NAMESPACE " + ManagedLabel + "=true", Blocking: true}}, nil
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	pods := map[string][]corev1.Pod{} // per managed Deployment, namespace/name
	for _, d := range deps.Items {
		var list corev1.PodList
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			problems = append(problems, problem.Problem{Object: "deployment " + d.Namespace + "/" + d.Name, Wrong: "its selector does not parse: " + err.Error(), Remedy: "fix spec.selector", Blocking: true})
			continue
		}
		if err := c.List(ctx, &list, client.InNamespace(d.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return nil, fmt.Errorf("list pods in %s: %w", d.Namespace, err)
		}
		pods[d.Namespace+"/"+d.Name] = list.Items
	}
	problems = append(problems, checkLocalities(nodes.Items, pods)...)
	found, err := checkMesh(ctx, c, deps.Items, pods, dataPlane)
	if err != nil {
		return nil, err
	}
	problems = append(problems, found...)
	if found, err = checkServices(ctx, c, deps.Items); err != nil {
		return nil, err
	}
	problems = append(problems, found...)
	if found, err = checkRules(ctx, c, deps.Items); err != nil {
		return nil, err
	}
	problems = append(problems, found...)
	m, err := col.Collect(ctx, now)
	if err != nil {
		return append(problems, problem.Problem{Object: "prometheus", Wrong: "a collection failed: " + err.Error(),
			Remedy: "check --prometheus-address and that Prometheus answers the queries (docs/traffic.md, \"Measurements\")", Blocking: true}), nil
	}
	return append(problems, checkMeasurements(*m, pods)...), nil
}

// permissions are what artt-traffic asks of the API: what it reads, every
// cycle and here, and the rules it writes.
var permissions = []authorizationv1.ResourceAttributes{
	{Verb: "list", Resource: "deployments", Group: "apps"}, {Verb: "watch", Resource: "deployments", Group: "apps"},
	{Verb: "list", Resource: "pods"}, {Verb: "watch", Resource: "pods"},
	{Verb: "list", Resource: "nodes"}, {Verb: "watch", Resource: "nodes"},
	{Verb: "get", Resource: "services"}, {Verb: "get", Resource: "namespaces"},
	{Verb: "list", Resource: "destinationrules", Group: "networking.istio.io"},
	{Verb: "create", Resource: "destinationrules", Group: "networking.istio.io"},
	{Verb: "patch", Resource: "destinationrules", Group: "networking.istio.io"},
}

// checkPermissions asks the API, one SelfSubjectAccessReview a permission,
// whether artt-traffic's credentials grant what it uses.
func checkPermissions(ctx context.Context, c client.Client) ([]problem.Problem, error) {
	var problems []problem.Problem
	for _, p := range permissions {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &p}}
		if err := c.Create(ctx, review); err != nil {
			return nil, fmt.Errorf("ask the API whether this account may %s %s: %w", p.Verb, p.Resource, err)
		}
		if !review.Status.Allowed {
			group := p.Group
			if group == "" {
				group = `""`
			}
			problems = append(problems, problem.Problem{Object: "rbac", Wrong: fmt.Sprintf("this account may not %s %s (group %s)", p.Verb, p.Resource, group),
				Remedy: "apply deploy/traffic/rbac.yaml (or the chart) for artt-traffic's ServiceAccount", Blocking: true})
		}
	}
	return problems, nil
}

// checkLocalities finds the nodes that run managed pods without a full
// locality: ARTT's rules send them no traffic.
func checkLocalities(nodes []corev1.Node, pods map[string][]corev1.Pod) []problem.Problem {
	used := map[string]bool{}
	for _, list := range pods {
		for _, p := range list {
			used[p.Spec.NodeName] = true
		}
	}
	var problems []problem.Problem
	for _, n := range nodes {
		if !used[n.Name] {
			continue
		}
		var missing []string
		for _, l := range []string{RegionLabel, ZoneLabel, SubzoneLabel} {
			if n.Labels[l] == "" {
				missing = append(missing, l)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, problem.Problem{Object: "node " + n.Name, Wrong: fmt.Sprintf("it runs managed pods but has no %v, so ARTT's rules send it no traffic", missing),
				Remedy: "label it (topology.istio.io/subzone=" + n.Name + ") or run artt-traffic with --label-nodes", Blocking: true})
		}
	}
	return problems
}

// Istio's namespace labels for its data planes.
const (
	injectionLabel    = "istio-injection"
	revisionLabel     = "istio.io/rev"
	dataplaneModeKey  = "istio.io/dataplane-mode"
	useWaypointLabel  = "istio.io/use-waypoint"
	ambientMode       = "ambient"
	injectionEnabled  = "enabled"
	injectionDisabled = "disabled"
)

// checkMesh reads each managed namespace's data plane: sidecars carry the
// weights, ambient mode only through a waypoint, and a namespace with
// neither carries them only to proxyless gRPC clients. Sidecars are known
// by the namespace's injection label, or by every managed pod of it
// carrying the status istio's injector writes (injection asked per pod).
func checkMesh(ctx context.Context, c client.Client, deps []appsv1.Deployment, pods map[string][]corev1.Pod, dataPlane DataPlane) ([]problem.Problem, error) {
	if dataPlane == DataPlaneGRPC {
		return nil, nil // proxyless clients read the rules from istiod themselves
	}
	var problems []problem.Problem
	for _, ns := range namespacesOf(deps) {
		var n corev1.Namespace
		if err := c.Get(ctx, client.ObjectKey{Name: ns}, &n); err != nil {
			return nil, fmt.Errorf("get namespace %s: %w", ns, err)
		}
		l := n.Labels
		switch {
		case l[dataplaneModeKey] == ambientMode && l[useWaypointLabel] == "":
			problems = append(problems, problem.Problem{Object: "namespace " + ns, Wrong: "it is in Istio's ambient mode without a waypoint, where ztunnel ignores a rule's localityLbSetting",
				Remedy: "give it a waypoint (istioctl waypoint apply -n " + ns + " --enroll-namespace) or use sidecars", Blocking: true})
		case l[dataplaneModeKey] == ambientMode, l[injectionLabel] == injectionEnabled, l[revisionLabel] != "" && l[injectionLabel] != injectionDisabled,
			allInjected(ns, pods):
		default:
			problems = append(problems, problem.Problem{Object: "namespace " + ns, Wrong: "it has no sidecar injection (" + injectionLabel + "=" + injectionEnabled + " or " + revisionLabel + "), so no proxy carries ARTT's weights",
				Remedy: "label it " + injectionLabel + "=" + injectionEnabled + " and restart its pods, or run artt-traffic with --data-plane=grpc for proxyless gRPC clients", Blocking: true})
		}
	}
	return problems, nil
}

// sidecarStatus is the annotation Istio's injector writes on each pod it
// gave a sidecar.
const sidecarStatus = "sidecar.istio.io/status"

// allInjected reports whether namespace ns has managed pods and every one
// of them has a sidecar.
func allInjected(ns string, pods map[string][]corev1.Pod) bool {
	n := 0
	for _, list := range pods {
		for _, p := range list {
			if p.Namespace != ns {
				continue
			}
			if p.Annotations[sidecarStatus] == "" {
				return false
			}
			n++
		}
	}
	return n > 0
}

// checkServices finds, for each managed Deployment, the Service its host
// names: without one, its callers cannot reach it by that host; a Service's
// trafficDistribution is overridden by the rule's localityLbSetting.
func checkServices(ctx context.Context, c client.Client, deps []appsv1.Deployment) ([]problem.Problem, error) {
	var problems []problem.Problem
	for _, d := range deps {
		if d.Annotations[HostAnnotation] != "" {
			continue // the user named the host
		}
		var svc corev1.Service
		err := c.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, &svc)
		if client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("get service %s/%s: %w", d.Namespace, d.Name, err)
		}
		if err != nil {
			problems = append(problems, problem.Problem{Object: "deployment " + d.Namespace + "/" + d.Name, Wrong: "no Service " + d.Name + " in its namespace, the host ARTT's rule is written for",
				Remedy: "create the Service, or name its host with the annotation " + HostAnnotation, Blocking: true})
			continue
		}
		if svc.Spec.TrafficDistribution != nil {
			problems = append(problems, problem.Problem{Object: "service " + d.Namespace + "/" + d.Name, Wrong: "its trafficDistribution " + *svc.Spec.TrafficDistribution + " is overridden by the localityLbSetting ARTT writes",
				Remedy: "remove trafficDistribution, or leave the Deployment to it by removing " + ManagedLabel})
		}
	}
	return problems, nil
}

// checkRules finds the users' DestinationRules that set zoneAwareLbSetting
// for a managed Deployment's host. ARTT writes its rows into the user's rule
// as localityLbSetting: Istio's validation refuses a rule with both, and
// istiod, given both, uses zoneAwareLbSetting alone (GetEffectiveLbSetting).
// The mesh-wide zoneAwareLbSetting needs no check: a rule's
// localityLbSetting takes precedence over it.
func checkRules(ctx context.Context, c client.Client, deps []appsv1.Deployment) ([]problem.Problem, error) {
	var problems []problem.Problem
	rules := map[string][]*networkingv1.DestinationRule{} // per namespace
	for _, d := range deps {
		if _, listed := rules[d.Namespace]; !listed {
			var list networkingv1.DestinationRuleList
			if err := c.List(ctx, &list, client.InNamespace(d.Namespace)); err != nil {
				return nil, fmt.Errorf("list destinationrules in %s: %w", d.Namespace, err)
			}
			rules[d.Namespace] = list.Items
		}
		r := userRule(rules[d.Namespace], component{namespace: d.Namespace, workload: d.Name, host: hostOf(d)})
		if r == nil || r.Spec.GetTrafficPolicy().GetLoadBalancer().GetZoneAwareLbSetting() == nil {
			continue
		}
		problems = append(problems, problem.Problem{Object: "destinationrule " + r.Namespace + "/" + r.Name,
			Wrong:  "its zoneAwareLbSetting takes precedence over the localityLbSetting ARTT writes into it for " + d.Namespace + "/" + d.Name + ", and Istio's validation refuses a rule with both",
			Remedy: "remove zoneAwareLbSetting, or leave the Deployment to it by removing " + ManagedLabel, Blocking: true})
	}
	return problems, nil
}

// checkMeasurements finds the managed pods a collection did not measure:
// without CPU or requests ARTT cannot weigh a pod; without latency its
// health reads errors and CPU alone; without calls or delays every caller
// is routed alike and every link counts as fast.
func checkMeasurements(m Measurements, pods map[string][]corev1.Pod) []problem.Problem {
	var problems []problem.Problem
	measured := func(what map[podKey]float64, name string, blocking bool, remedy string) {
		for _, dep := range slices.Sorted(maps.Keys(pods)) {
			var missing []string
			for _, p := range pods[dep] {
				if _, ok := what[podKey{p.Namespace, p.Name}]; !ok && p.Status.Phase == corev1.PodRunning {
					missing = append(missing, p.Name)
				}
			}
			if len(missing) > 0 {
				problems = append(problems, problem.Problem{Object: "deployment " + dep, Wrong: fmt.Sprintf("the %s query returns nothing for %d of its running pods (%s)", name, len(missing), missing[0]),
					Remedy: remedy, Blocking: blocking})
			}
		}
	}
	measured(m.CPU, "CPU", true, "scrape cAdvisor with namespace and pod labels (docs/traffic.md, \"Measurements\")")
	measured(m.Requests, "requests", true, "scrape the sidecars' istio_requests_total with namespace and pod labels")
	measured(m.Latency, "latency", false, "scrape the sidecars' istio_request_duration_milliseconds_bucket; health then judges latency too")
	if len(m.Calls) == 0 {
		problems = append(problems, problem.Problem{Object: "prometheus", Wrong: "the calls query returns no call between workloads, so every caller is routed alike",
			Remedy: "scrape the sidecars' istio_requests_total with reporter=\"source\""})
	}
	if len(m.DelayMs) == 0 {
		problems = append(problems, problem.Problem{Object: "prometheus", Wrong: "the delay query returns no node-to-node delay, so every link counts as fast",
			Remedy: "kubectl apply -k deploy/examples/node-probes and add the jobs hack/node-probe-scrape-config.sh prints"})
	}
	return problems
}

// namespacesOf is the Deployments' namespaces, sorted, each once.
func namespacesOf(deps []appsv1.Deployment) []string {
	var out []string
	for _, d := range deps {
		out = append(out, d.Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

package importer

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/artt-dev/artt/internal/stats"
)

// node is one imported node.
type node struct {
	name          string
	cores, speed  float64
	speedEstimate string // why the speed is not a fit, or ""
}

// readNodes gives each node that runs a component's pod its allocatable CPU
// and fitted speed.
func readNodes(ctx context.Context, q querier, comps map[string]*component, fit speedFit, est *estimates) ([]node, error) {
	names := map[string]bool{}
	for _, c := range comps {
		for _, p := range c.pods {
			names[p.node] = true
		}
	}
	const coresQuery = `kube_node_status_allocatable{resource="cpu"}`
	cores, err := q.vector(ctx, coresQuery)
	if err != nil {
		return nil, err
	}
	if len(cores) == 0 {
		return nil, &missingError{what: "node CPU", query: coresQuery, from: kubeStateMetrics}
	}
	coresOf := map[string]float64{}
	for _, s := range cores {
		coresOf[label(s, "node")] = float64(s.Value)
	}
	group := map[string]int{}
	for i, g := range fit.groups {
		for _, n := range g {
			group[n] = i
		}
	}
	var out []node
	for name := range names {
		n := node{name: name, cores: coresOf[name], speed: 1}
		if n.cores <= 0 {
			return nil, fmt.Errorf("node %q runs pods of the namespace but has no allocatable CPU in kube_node_status_allocatable", name)
		}
		if s, ok := fit.speed[name]; ok {
			n.speed = s
			if len(fit.groups) > 1 && group[name] > 0 {
				n.speedEstimate = est.add("node "+name, "speed relative to %s only; no measured component runs both there and on %s", strings.Join(fit.groups[group[name]], ", "), strings.Join(fit.groups[0], ", "))
			}
		} else {
			n.speedEstimate = est.add("node "+name, "speed 1 assumed, no pod of the namespace served requests there over the period")
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b node) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// ingressGateway is where external requests enter.
type ingressGateway struct {
	nodes    []string // one per replica
	estimate string   // why it is not read, or ""
}

// readIngress places the gateway on the nodes of its pods, read from
// kube-state-metrics for the workloads that call the entry from outside.
// Nodes outside the application's are added to it (they carry no pods of
// the namespace, only the gateway). Without them, the gateway is assumed on
// the entry's nodes.
func readIngress(ctx context.Context, q querier, external []string, entry *component, nodes []node, est *estimates) (ingressGateway, error) {
	var g ingressGateway
	for _, ext := range external {
		ns, name, _ := strings.Cut(ext, "/")
		if ns == "" || name == "" || name == "unknown" {
			continue
		}
		v, err := q.vector(ctx, `kube_pod_info{namespace=`+quote(ns)+`,pod=~`+quote(regexpQuote(name)+`-.*`)+`}`)
		if err != nil {
			return g, err
		}
		for _, s := range v {
			if n := label(s, "node"); n != "" {
				g.nodes = append(g.nodes, n)
			}
		}
	}
	slices.Sort(g.nodes)
	known := map[string]bool{}
	for _, n := range nodes {
		known[n.name] = true
	}
	kept := g.nodes[:0]
	for _, n := range g.nodes {
		if known[n] {
			kept = append(kept, n)
		}
	}
	if len(kept) < len(g.nodes) {
		est.add("ingress", "gateway replicas on nodes without the application's pods are left out")
	}
	g.nodes = kept
	if len(g.nodes) == 0 {
		for _, p := range entry.pods {
			g.nodes = append(g.nodes, p.node)
		}
		slices.Sort(g.nodes)
		g.nodes = slices.Compact(g.nodes)
		g.estimate = est.add("ingress", "the gateway's pods are not in kube_pod_info for %s; one replica assumed on each node of %s", strings.Join(external, ", "), entry.name)
	}
	return g, nil
}

// regexpQuote escapes a workload name for a PromQL regular expression.
func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// delays are the node-to-node one-way delays.
type delays struct {
	defaultMs, jitterMs float64
	// links are the measured pairs, from → to → ms.
	links                     map[[2]string]float64
	defaultEstimate, jitterOf string
}

// delayQuery and jitterQuery read the node probes (deploy/examples/node-probes)
// over the period, as artt-traffic's --delay-query reads them at an instant.
const (
	delayQuery  = `avg by (source_node, target_node) (avg_over_time(probe_duration_seconds{job="artt-node-probe"}[%s])) * 1000 / 2`
	jitterQuery = `avg by (source_node, target_node) (stddev_over_time(probe_duration_seconds{job="artt-node-probe"}[%s])) * 1000 / 2`
)

// readDelays reads the probes between the scenario's nodes: every
// measured pair becomes a link, the median of them the default for the
// pairs not measured, and the median jitter the scenario's jitter.
func readDelays(ctx context.Context, q querier, nodes []node, defaultMs float64, est *estimates) (delays, error) {
	d := delays{links: map[[2]string]float64{}}
	known := map[string]bool{}
	for _, n := range nodes {
		known[n.name] = true
	}
	mean, err := q.vector(ctx, fmt.Sprintf(delayQuery, q.window))
	if err != nil {
		return d, err
	}
	var all []float64
	for _, s := range mean {
		from, to := label(s, "source_node"), label(s, "target_node")
		if known[from] && known[to] && from != to && float64(s.Value) >= 0 {
			d.links[[2]string{from, to}] = float64(s.Value)
			all = append(all, float64(s.Value))
		}
	}
	if len(all) == 0 {
		if defaultMs < 0 {
			if len(nodes) == 1 {
				return d, nil // one node: nothing crosses a link
			}
			return d, &missingError{what: "node-to-node delays between the application's nodes", query: fmt.Sprintf(delayQuery, q.window), from: nodeProbes}
		}
		d.defaultMs = defaultMs
		d.defaultEstimate = est.add("delays", "no node probes; every pair of nodes %.3g ms one way (--default-delay)", defaultMs)
		return d, nil
	}
	d.defaultMs = stats.MedianInPlace(all)
	if pairs := len(nodes) * (len(nodes) - 1); len(d.links) < pairs {
		d.defaultEstimate = est.add("delays", "%d of %d node pairs probed; the others get the median, %.3g ms", len(d.links), pairs, d.defaultMs)
	}
	jitter, err := q.vector(ctx, fmt.Sprintf(jitterQuery, q.window))
	if err != nil {
		return d, err
	}
	var js []float64
	for _, s := range jitter {
		if known[label(s, "source_node")] && known[label(s, "target_node")] && !math.IsNaN(float64(s.Value)) {
			js = append(js, float64(s.Value))
		}
	}
	if len(js) > 0 {
		d.jitterMs = stats.MedianInPlace(js)
		d.jitterOf = "the median over the probed pairs of the probes' standard deviation"
	}
	return d, nil
}

// currentRouting tells whether artt-traffic already routes the namespace
// (its share gauge is in Prometheus); otherwise Istio's default,
// least-request, is assumed: DestinationRules are not in Prometheus.
func currentRouting(ctx context.Context, q querier, namespace string, est *estimates) (string, error) {
	v, err := q.vector(ctx, `count(artt_traffic_group_share{component=~`+quote(regexpQuote(namespace)+`/.*`)+`})`)
	if err != nil {
		return "", err
	}
	if len(v) > 0 && v[0].Value > 0 {
		return "artt", nil
	}
	est.add("routing today", "Istio's default least-request assumed (no artt_traffic_group_share for the namespace; DestinationRules are not in Prometheus)")
	return "least-request", nil
}

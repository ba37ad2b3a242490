package importer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/loadtest"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// original is the synthetic cluster the test exporter describes: nodes of
// known speeds, known delays, a known call graph and an HPA on back.
const original = `
name: shop
duration: 59m
warmup: 1m
seed: 1
cluster:
  nodes:
    - {name: n1, cores: 4, speed: 1.0}
    - {name: n2, cores: 4, speed: 0.8}
    - {name: n3, cores: 2, speed: 0.6}
  delays: {defaultMs: 0.3, jitterMs: 0.05, links: [{from: n1, to: n3, ms: 1.5, symmetric: true}]}
  ingressNode: n1
  ingress: {replicas: 2, nodes: [n1]}
application:
  entry: front
  components:
    - {name: front, cpuPerRequest: 2ms, cpuLimit: 1, cpuRequest: 0.5, replicas: 3, placement: [n1, n2, n3], calls: [back, cache]}
    - {name: back, cpuPerRequest: 10ms, cpuLimit: 1, cpuRequest: 0.5, replicas: 4, minReplicas: 2, maxReplicas: 6, autoscale: true, placement: [n1, n2, n3, n2], calls: [db]}
    - {name: cache, cpuPerRequest: 1ms, cpuLimit: 0.5, cpuRequest: 0.25, replicas: 1, placement: [n1]}
    - {name: db, cpuPerRequest: 5ms, cpuLimit: 2, cpuRequest: 1, replicas: 2, placement: [n2, n3]}
workload:
  type: steps
  steps: [{at: 0s, rate: 40}, {at: 20m, rate: 80}, {at: 40m, rate: 60}]
control: {cpuTarget: 60}
runs:
  - {name: today, routing: least-request, autoscaling: hpa-cpu, cpuTarget: 60}
  - {name: artt, routing: artt}
`

const (
	namespace = "shop"
	scrape    = 15 * time.Second
	period    = time.Hour
)

// parts chooses which exporters the synthetic Prometheus has.
type parts struct{ ksm, istio, probes bool }

// history writes what cAdvisor, kube-state-metrics, Istio and the node
// probes would have recorded of sc over the period ending at until (and
// ten minutes before, so rates at its start have samples): every request
// split equally over a component's pods, each costing cpuPerRequest ÷ the
// node's speed (± the pod's own few percent); probes reporting twice the
// one-way delay plus jitter.
func history(t *testing.T, sc *scenario.Scenario, until time.Time, p parts) *promtest.History {
	t.Helper()
	h := &promtest.History{}
	speed, cores := map[string]float64{}, map[string]float64{}
	for _, n := range sc.Cluster.Nodes {
		speed[n.Name], cores[n.Name] = n.Speed, n.Cores
	}
	delay := func(a, b string) float64 {
		for _, l := range sc.Cluster.Delays.Links {
			if (l.From == a && l.To == b) || (l.Symmetric && l.From == b && l.To == a) {
				return l.Ms
			}
		}
		return sc.Cluster.Delays.DefaultMs
	}
	start := until.Add(-period - 10*time.Minute)
	origin := until.Add(-period) // the lab's time 0
	rateAt := func(at time.Time) float64 {
		r := 0.0
		for _, s := range sc.Workload.Steps {
			if at.Sub(origin) >= s.At.Duration {
				r = s.Rate
			}
		}
		if r == 0 {
			r = sc.Workload.Steps[0].Rate
		}
		return r
	}
	byName := map[string]scenario.Component{}
	for _, c := range sc.Application.Components {
		byName[c.Name] = c
	}
	// Calls per second into each component per request at the entry.
	perEntry := map[string]float64{}
	var walk func(string, float64)
	walk = func(c string, w float64) {
		perEntry[c] += w
		for _, d := range byName[c].Calls {
			walk(d, w)
		}
	}
	walk(sc.Application.Entry, 1)
	podName := func(c string, i int) string { return fmt.Sprintf("%s-5d8f9-%d", c, i) }
	rng := rand.New(rand.NewPCG(3, 4))
	// Each pod's cost per request is off its node's by up to ±3%, as real
	// pods differ (cache state, neighbours), so the fit has noise to see
	// through.
	podNoise := map[string]float64{}
	for _, c := range sc.Application.Components {
		for i := range c.Replicas {
			podNoise[podName(c.Name, i)] = 1 + 0.03*(2*rng.Float64()-1)
		}
	}
	served, used := map[string]float64{}, map[string]float64{}
	edges := map[string]float64{}
	prev := start
	for at := start; !at.After(until); at = at.Add(scrape) {
		dt := at.Sub(prev).Seconds()
		prev = at
		entry := rateAt(at)
		for _, c := range sc.Application.Components {
			rate := entry * perEntry[c.Name]
			for i := range c.Replicas {
				pod, node := podName(c.Name, i), c.Placement[i%len(c.Placement)]
				podLabels := fmt.Sprintf(`namespace=%q,pod=%q`, namespace, pod)
				served[pod] += rate / float64(c.Replicas) * dt
				used[pod] += rate / float64(c.Replicas) * c.CPUPerRequest.Seconds() / speed[node] * podNoise[pod] * dt
				if p.istio {
					h.Counter("istio_requests_total", fmt.Sprintf(`reporter="destination",%s,destination_workload=%q,destination_workload_namespace=%q,response_code="200"`, podLabels, c.Name, namespace), at, served[pod])
				}
				h.Counter("container_cpu_usage_seconds_total", podLabels+`,container="app"`, at, used[pod])
				if p.ksm {
					h.Gauge("kube_pod_info", fmt.Sprintf(`%s,node=%q,created_by_kind="ReplicaSet",created_by_name=%q`, podLabels, node, c.Name+"-5d8f9"), at, 1)
					h.Gauge("kube_pod_container_resource_requests", podLabels+`,container="app",resource="cpu",unit="core"`, at, c.CPURequest)
					h.Gauge("kube_pod_container_resource_limits", podLabels+`,container="app",resource="cpu",unit="core"`, at, c.CPULimit)
				}
			}
			if p.ksm {
				h.Gauge("kube_replicaset_owner", fmt.Sprintf(`namespace=%q,replicaset=%q,owner_kind="Deployment",owner_name=%q`, namespace, c.Name+"-5d8f9", c.Name), at, 1)
				if c.Autoscale {
					hpa := fmt.Sprintf(`namespace=%q,horizontalpodautoscaler=%q`, namespace, c.Name)
					h.Gauge("kube_horizontalpodautoscaler_info", hpa+fmt.Sprintf(`,scaletargetref_kind="Deployment",scaletargetref_name=%q`, c.Name), at, 1)
					h.Gauge("kube_horizontalpodautoscaler_spec_min_replicas", hpa, at, float64(c.MinReplicas))
					h.Gauge("kube_horizontalpodautoscaler_spec_max_replicas", hpa, at, float64(c.MaxReplicas))
					h.Gauge("kube_horizontalpodautoscaler_spec_target_metric", hpa+`,metric_name="cpu",metric_target_type="utilization"`, at, sc.Control.CPUTarget)
				}
			}
			// Source-side counters: the gateway calls the entry, callers
			// their callees.
			callers := map[string]string{}
			if c.Name == sc.Application.Entry {
				callers[`source_workload="istio-ingressgateway",source_workload_namespace="istio-system"`] = ""
			}
			for _, up := range sc.Application.Components {
				if slices.Contains(up.Calls, c.Name) {
					callers[fmt.Sprintf(`source_workload=%q,source_workload_namespace=%q`, up.Name, namespace)] = up.Name
				}
			}
			for src, up := range callers {
				r := entry
				if up != "" {
					r = entry * perEntry[up]
				}
				key := fmt.Sprintf(`reporter="source",%s,destination_workload=%q,destination_workload_namespace=%q,response_code="200"`, src, c.Name, namespace)
				edges[key] += r * dt
				if p.istio {
					h.Counter("istio_requests_total", key, at, edges[key])
				}
			}
		}
		for _, n := range sc.Cluster.Nodes {
			if p.ksm {
				h.Gauge("kube_node_status_allocatable", fmt.Sprintf(`node=%q,resource="cpu",unit="core"`, n.Name), at, n.Cores)
			}
			for _, m := range sc.Cluster.Nodes {
				if p.probes && n.Name != m.Name {
					ms := delay(n.Name, m.Name) + sc.Cluster.Delays.JitterMs*rng.NormFloat64()
					h.Gauge("probe_duration_seconds", fmt.Sprintf(`job="artt-node-probe",source_node=%q,target_node=%q`, n.Name, m.Name), at, 2*ms/1000)
				}
			}
		}
		if p.ksm {
			for i := range sc.Cluster.Ingress.Replicas {
				h.Gauge("kube_pod_info", fmt.Sprintf(`namespace="istio-system",pod="istio-ingressgateway-7c9d4-%d",node=%q,created_by_kind="ReplicaSet",created_by_name="istio-ingressgateway-7c9d4"`,
					i, sc.Cluster.Ingress.Nodes[i%len(sc.Cluster.Ingress.Nodes)]), at, 1)
			}
		}
	}
	return h
}

// synthetic starts a Prometheus holding the history of the original
// scenario with the given exporters, or skips without Prometheus.
func synthetic(t *testing.T, p parts) (promv1.API, *scenario.Scenario, time.Time) {
	t.Helper()
	return syntheticThrough(t, p, api.DefaultRoundTripper)
}

// syntheticThrough is synthetic with the client's requests going through rt.
func syntheticThrough(t *testing.T, p parts, rt http.RoundTripper) (promv1.API, *scenario.Scenario, time.Time) {
	t.Helper()
	if _, err := promtest.Binary(); err != nil {
		if promtest.Required() {
			t.Fatalf("Prometheus is required: %v", err)
		}
		t.Skipf("Prometheus not installed (apt-get install prometheus): %v", err)
	}
	sc, err := scenario.Parse([]byte(original))
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(-time.Minute).Truncate(time.Minute)
	srv, err := promtest.StartWithHistory(t.TempDir(), history(t, sc, until, p), nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	client, err := api.NewClient(api.Config{Address: srv.URL, RoundTripper: rt})
	if err != nil {
		t.Fatal(err)
	}
	return promv1.NewAPI(client), sc, until
}

func importOptions(until time.Time) Options {
	return Options{Namespace: namespace, Since: period, Until: until, Step: time.Minute, DefaultDelayMs: -1, Source: "the test's Prometheus", Name: "shop-imported"}
}

func TestImportRecoversTheCluster(t *testing.T) {
	promAPI, orig, until := synthetic(t, parts{ksm: true, istio: true, probes: true})
	res, err := Import(context.Background(), promAPI, importOptions(until))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "shop-imported.yaml")
	if err := os.WriteFile(path, res.Scenario, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop-imported-workload.csv"), res.Trace, 0o644); err != nil {
		t.Fatal(err)
	}
	imported, err := loadtest.Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Scenario)
	}
	got := imported.Scenario
	t.Logf("imported scenario:\n%s", res.Scenario)

	t.Run("nodes: speeds within 5%, cores read", func(t *testing.T) {
		if len(got.Cluster.Nodes) != len(orig.Cluster.Nodes) {
			t.Fatalf("nodes %v, want %v", got.Cluster.Nodes, orig.Cluster.Nodes)
		}
		for i, n := range orig.Cluster.Nodes {
			g := got.Cluster.Nodes[i]
			if g.Name != n.Name || g.Cores != n.Cores || math.Abs(g.Speed/n.Speed-1) > 0.05 {
				t.Errorf("node %+v, want %+v with the speed within 5%%", g, n)
			}
		}
	})
	t.Run("components: call graph exact, cost within 5%, replicas and placement", func(t *testing.T) {
		if got.Application.Entry != orig.Application.Entry || len(got.Application.Components) != len(orig.Application.Components) {
			t.Fatalf("entry %s, %d components; want %s, %d", got.Application.Entry, len(got.Application.Components), orig.Application.Entry, len(orig.Application.Components))
		}
		for _, want := range orig.Application.Components {
			var g *scenario.Component
			for i := range got.Application.Components {
				if got.Application.Components[i].Name == want.Name {
					g = &got.Application.Components[i]
				}
			}
			if g == nil {
				t.Errorf("component %s missing", want.Name)
				continue
			}
			wantCalls, gotCalls := slices.Sorted(slices.Values(want.Calls)), slices.Sorted(slices.Values(g.Calls))
			if !slices.Equal(gotCalls, wantCalls) {
				t.Errorf("%s calls %v, want %v", want.Name, gotCalls, wantCalls)
			}
			if r := g.CPUPerRequest.Seconds() / want.CPUPerRequest.Seconds(); math.Abs(r-1) > 0.05 {
				t.Errorf("%s cpuPerRequest %s, want %s within 5%%", want.Name, g.CPUPerRequest, want.CPUPerRequest)
			}
			wantPlacement := make([]string, want.Replicas)
			for i := range wantPlacement {
				wantPlacement[i] = want.Placement[i%len(want.Placement)]
			}
			if g.Replicas != want.Replicas || !slices.Equal(g.Placement, wantPlacement) {
				t.Errorf("%s: %d replicas on %v, want %d on %v", want.Name, g.Replicas, g.Placement, want.Replicas, wantPlacement)
			}
			if g.CPULimit != want.CPULimit || g.CPURequest != want.CPURequest {
				t.Errorf("%s: limit %v request %v, want %v and %v", want.Name, g.CPULimit, g.CPURequest, want.CPULimit, want.CPURequest)
			}
			if g.Autoscale != want.Autoscale || (want.Autoscale && (g.MinReplicas != want.MinReplicas || g.MaxReplicas != want.MaxReplicas)) {
				t.Errorf("%s: autoscale %v %d–%d, want %v %d–%d", want.Name, g.Autoscale, g.MinReplicas, g.MaxReplicas, want.Autoscale, want.MinReplicas, want.MaxReplicas)
			}
		}
	})
	t.Run("delays within the jitter", func(t *testing.T) {
		d := got.Cluster.Delays
		jitter := orig.Cluster.Delays.JitterMs
		if math.Abs(d.JitterMs-jitter) > jitter/2 {
			t.Errorf("jitter %v ms, want about %v", d.JitterMs, jitter)
		}
		measured := map[[2]string]float64{}
		for _, l := range d.Links {
			measured[[2]string{l.From, l.To}] = l.Ms
		}
		for _, a := range orig.Cluster.Nodes {
			for _, b := range orig.Cluster.Nodes {
				if a.Name == b.Name {
					continue
				}
				want := orig.Cluster.Delays.DefaultMs
				if (a.Name == "n1" && b.Name == "n3") || (a.Name == "n3" && b.Name == "n1") {
					want = 1.5
				}
				if g, ok := measured[[2]string{a.Name, b.Name}]; !ok || math.Abs(g-want) > jitter {
					t.Errorf("delay %s → %s = %v ms (listed %v), want %v within the %v ms jitter", a.Name, b.Name, g, ok, want, jitter)
				}
			}
		}
	})
	t.Run("ingress, workload, runs", func(t *testing.T) {
		if !slices.Equal(got.Cluster.Ingress.Nodes, []string{"n1", "n1"}) {
			t.Errorf("ingress on %v, want the gateway's two pods on n1", got.Cluster.Ingress.Nodes)
		}
		rate, err := loadtest.Rate(imported, "")
		if err != nil {
			t.Fatal(err)
		}
		// Inside each step of the original, the trace holds its rate.
		for _, at := range []float64{300, 900, 1500, 2100, 2700, 3300} {
			want := 40.0
			switch {
			case at >= 2400:
				want = 60
			case at >= 1200:
				want = 80
			}
			if g := rate.At(at); math.Abs(g/want-1) > 0.02 {
				t.Errorf("trace at %.0f s: %v requests per second, want %v", at, g, want)
			}
		}
		var labels []string
		for _, r := range got.Runs {
			labels = append(labels, r.Label())
		}
		for _, want := range []string{"today", "least-request", "artt", "artt+artt-hpa", "least-request+artt-hpa", "hpa-60"} {
			if !slices.Contains(labels, want) {
				t.Errorf("runs %v lack %s", labels, want)
			}
		}
		if today := got.Runs[0]; today.Routing != "least-request" || today.Autoscaling != "hpa-cpu" || today.CPUTarget != 60 {
			t.Errorf("today's run %+v, want least-request with the CPU HPA at 60%%", today)
		}
		for _, marked := range []string{"timeout: 5s  # estimated:", `demand: "exponential"  # estimated:`, "routing: least-request, autoscaling: hpa-cpu, cpuTarget: 60}  # estimated:"} {
			if !strings.Contains(string(res.Scenario), marked) {
				t.Errorf("scenario lacks the marked estimate %q", marked)
			}
		}
	})
	t.Run("the imported scenario runs like the original", func(t *testing.T) {
		p99 := func(l loadtest.Loaded, seed uint64) map[string]float64 {
			res, err := loadtest.Run(l, loadtest.Options{Runs: []string{"today", "artt"}, Seed: &seed})
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]float64{}
			for _, r := range res {
				out[r.Run] = r.P99Ms
			}
			return out
		}
		base := loadtest.Loaded{Scenario: orig}
		seed1, seed2, imp := p99(base, 1), p99(base, 2), p99(imported, 1)
		for _, run := range []string{"today", "artt"} {
			// The tolerance is the original's own noise: twice the change
			// another seed makes, and never under 5%.
			tol := math.Max(0.05, 2*math.Abs(seed2[run]/seed1[run]-1))
			t.Logf("%s: P99 original %.1f ms (seed 2: %.1f), imported %.1f ms; tolerance %.1f%%", run, seed1[run], seed2[run], imp[run], 100*tol)
			if math.Abs(imp[run]/seed1[run]-1) > tol {
				t.Errorf("%s: imported P99 %.1f ms against the original's %.1f ms, beyond %.1f%%", run, imp[run], seed1[run], 100*tol)
			}
		}
	})
}

package querycheck

import (
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/artt-dev/artt/scaler"
)

// namespaceLabels are the labels a rendered query selects its namespace
// by: cAdvisor's and kube-state-metrics' namespace, and Istio's
// destination_workload_namespace.
var namespaceLabels = []string{"namespace", "destination_workload_namespace"}

// promQL is Prometheus' parser with its default options, as a server
// without feature flags parses a query.
var promQL = parser.NewParser(parser.Options{})

// FuzzRenderedQueriesParse renders every trigger the scaler accepts into
// its queries and parses each with Prometheus' parser: each it renders
// from its own templates must parse, and every series it selects must be
// selected by an equality on the ScaledObject's namespace, so no value of
// the metadata widens a query to another namespace. A query the trigger
// gives itself is the user's PromQL, and left out. Names Kubernetes
// accepts, dotted ones included, are among the seeds.
func FuzzRenderedQueriesParse(f *testing.F) {
	f.Add("shop", "web", "window", "40")
	f.Add("shop", "web.v2", "rateWindow", "1m")
	f.Add("a-b.c", "web-1.v2.3", "step", "30s")
	f.Add("shop", `web"} or vector(1) #`, "history", "10")
	f.Add("shop", "web.v2", "normalization", "calendar")
	f.Add("shop", "web", "cpuUsageQuery", `sum(rate(container_cpu_usage_seconds_total{namespace="{{.Namespace}}",pod=~"{{.PodRegex}}"}[1m]))`)
	f.Fuzz(func(t *testing.T, namespace, workload, key, value string) {
		md := map[string]string{"workload": workload, key: value}
		spec, err := scaler.ParseMetadata(namespace, "so", md, "http://prometheus.monitoring:9090")
		if err != nil {
			return
		}
		for k, q := range map[string]string{"cpuUsageQuery": spec.CPUUsageQuery, "cpuRequestQuery": spec.CPURequestQuery,
			"requestRateQuery": spec.RequestRateQuery, "arrivalRateQuery": spec.ArrivalRateQuery, "podCPURequestQuery": spec.PodCPURequestQuery,
			"calendarQuery": spec.CalendarQuery} {
			if q == "" || k == key {
				continue
			}
			expr, err := promQL.ParseExpr(q)
			if err != nil {
				t.Fatalf("metadata %v in namespace %q renders %q, which Prometheus refuses: %v", md, namespace, q, err)
			}
			for _, sel := range selectors(expr) {
				if !selectsNamespace(sel.LabelMatchers, namespace) {
					t.Fatalf("query %q selects %s outside namespace %q", q, sel, namespace)
				}
			}
		}
	})
}

func selectors(expr parser.Expr) []*parser.VectorSelector {
	var out []*parser.VectorSelector
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out
}

func selectsNamespace(ms []*labels.Matcher, namespace string) bool {
	for _, m := range ms {
		for _, l := range namespaceLabels {
			if m.Name == l && m.Type == labels.MatchEqual && m.Value == namespace {
				return true
			}
		}
	}
	return false
}

// A dotted Deployment's queries parse, and their pod matcher takes its
// pods and no other Deployment's whose name differs at the dot.
func TestDottedWorkloadQueriesParse(t *testing.T) {
	spec, err := scaler.ParseMetadata("shop", "so", map[string]string{"workload": "web.v2"}, "http://prometheus.monitoring:9090")
	if err != nil {
		t.Fatal(err)
	}
	expr, err := promQL.ParseExpr(spec.CPUUsageQuery)
	if err != nil {
		t.Fatalf("%q: %v", spec.CPUUsageQuery, err)
	}
	for _, sel := range selectors(expr) {
		for _, m := range sel.LabelMatchers {
			if m.Name != "pod" {
				continue
			}
			if !m.Matches("web.v2-7c9f8d-x2k4q") || m.Matches("webxv2-7c9f8d-x2k4q") {
				t.Errorf("pod matcher %s: takes web.v2's pod %v, webxv2's %v", m, m.Matches("web.v2-7c9f8d-x2k4q"), m.Matches("webxv2-7c9f8d-x2k4q"))
			}
			return
		}
	}
	t.Fatalf("no pod matcher in %q", spec.CPUUsageQuery)
}

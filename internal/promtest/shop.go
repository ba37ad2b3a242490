package promtest

// ShopSeries emulates a namespace "shop" as cAdvisor, kube-state-metrics and
// Istio would expose it. The workload "web" has two pods using 0.3 cores each
// of 0.5 requested (60% utilisation) and serves 20 requests per second
// (reporter="destination"). The workload "web-api", whose pod names share the
// prefix, and cAdvisor's pause container must not count towards "web".
// "idle" has a pod and no traffic; "nocpu" has traffic and no CPU request.
// Every pod with a CPU request is Ready (kube_pod_status_ready).
func ShopSeries() []Series {
	const (
		cpu   = "container_cpu_usage_seconds_total"
		req   = "kube_pod_container_resource_requests"
		istio = "istio_requests_total"
		ready = "kube_pod_status_ready"
	)
	return []Series{
		{Name: cpu, Labels: `namespace="shop",pod="web-7d9f8c6b5d-abcde",container="app"`, Rate: 0.3},
		{Name: cpu, Labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",container="app"`, Rate: 0.3},
		{Name: cpu, Labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",container="POD"`, Rate: 0.01},
		{Name: cpu, Labels: `namespace="shop",pod="web-api-5c6d7f8b9-xyz12",container="app"`, Rate: 4},
		{Name: req, Labels: `namespace="shop",pod="web-7d9f8c6b5d-abcde",container="app",resource="cpu",unit="core"`, Value: 0.5},
		{Name: req, Labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",container="app",resource="cpu",unit="core"`, Value: 0.5},
		{Name: req, Labels: `namespace="shop",pod="web-api-5c6d7f8b9-xyz12",container="app",resource="cpu",unit="core"`, Value: 2},
		{Name: ready, Labels: `namespace="shop",pod="web-7d9f8c6b5d-abcde",condition="true"`, Value: 1},
		{Name: ready, Labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",condition="true"`, Value: 1},
		{Name: ready, Labels: `namespace="shop",pod="web-7d9f8c6b5d-fghij",condition="false"`, Value: 0},
		{Name: ready, Labels: `namespace="shop",pod="web-api-5c6d7f8b9-xyz12",condition="true"`, Value: 1},
		{Name: ready, Labels: `namespace="shop",pod="idle-6f7d8c9b5-aaaaa",condition="true"`, Value: 1},
		{Name: istio, Labels: `reporter="destination",destination_workload="web",destination_workload_namespace="shop",response_code="200"`, Rate: 12},
		{Name: istio, Labels: `reporter="destination",destination_workload="web",destination_workload_namespace="shop",response_code="500"`, Rate: 8},
		{Name: istio, Labels: `reporter="source",destination_workload="web",destination_workload_namespace="shop",response_code="200"`, Rate: 100},
		{Name: istio, Labels: `reporter="destination",destination_workload="web-api",destination_workload_namespace="shop",response_code="200"`, Rate: 50},
		{Name: cpu, Labels: `namespace="shop",pod="idle-6f7d8c9b5-aaaaa",container="app"`, Rate: 0.01},
		{Name: req, Labels: `namespace="shop",pod="idle-6f7d8c9b5-aaaaa",container="app",resource="cpu",unit="core"`, Value: 0.1},
		{Name: cpu, Labels: `namespace="shop",pod="nocpu-6f7d8c9b5-bbbbb",container="app"`, Rate: 0.2},
		{Name: istio, Labels: `reporter="destination",destination_workload="nocpu",destination_workload_namespace="shop",response_code="200"`, Rate: 5},
	}
}

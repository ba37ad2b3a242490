package controller

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"

	"github.com/artt-dev/artt/deploy/monitoring"
	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/internal/promvector"
)

// The recording rules shipped in deploy/monitoring record exactly the
// default queries, under the names RecordedQueries reads, in order.
func TestRecordingRulesRecordTheDefaultQueries(t *testing.T) {
	rules, _, err := monitoring.RecordingRules()
	if err != nil {
		t.Fatal(err)
	}
	d, r := DefaultQueries(), RecordedQueries()
	var want []monitoring.Recording
	for _, q := range [][2]string{{r.CPU, d.CPU}, {r.Requests, d.Requests}, {r.Errors, d.Errors}, {r.Latency, d.Latency}, {r.LatencyMean, d.LatencyMean}, {r.Calls, d.Calls}, {r.Delay, d.Delay}, {r.CPUWaiting, d.CPUWaiting}, {r.CPUThrottled, d.CPUThrottled}} {
		want = append(want, monitoring.Recording{Record: q[0], Expr: q[1]})
	}
	if len(rules) != len(want) {
		t.Fatalf("%d recording rules, want %d", len(rules), len(want))
	}
	for i := range want {
		if rules[i] != want[i] {
			t.Errorf("rule %d records %q as %q; want %q as %q", i, rules[i].Record, rules[i].Expr, want[i].Record, want[i].Expr)
		}
	}
}

// A collection through RecordedQueries, on a real Prometheus evaluating
// the shipped rules, reads what a collection through the queries reads at
// the instant of the rules' last evaluation:
// every pod's CPU, requests, errors, p95 and mean latency, the calls and the
// delays. The probe job is left out of both sides, as testQueries does.
func TestRecordedCollectionMatchesQueries(t *testing.T) {
	if _, err := promtest.Binary(); err != nil {
		if promtest.Required() {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
	_, file, err := monitoring.RecordingRules()
	if err != nil {
		t.Fatal(err)
	}
	file = strings.ReplaceAll(file, `{job="artt-node-probe"}`, "")
	file = strings.ReplaceAll(file, "interval: 15s", "interval: 1s")
	series := clusterSeries(map[string]float64{"shop/backend-n2": 2}, "shop")
	meanMs := func(i int) float64 { return 12.5 * float64(i+1) }
	for i, n := range testNodes {
		id := fmt.Sprintf(`reporter="destination",namespace="shop",pod="backend-%s"`, n)
		rps := 50.0
		series = append(series,
			promtest.Series{Name: "istio_requests_total", Labels: id + `,response_code="503"`, Rate: float64(i + 1)},
			promtest.Series{Name: "istio_request_duration_milliseconds_bucket", Labels: id + `,le="10"`, Rate: 0.5 * rps},
			promtest.Series{Name: "istio_request_duration_milliseconds_bucket", Labels: id + `,le="50"`, Rate: (0.9 + 0.02*float64(i)) * rps},
			promtest.Series{Name: "istio_request_duration_milliseconds_bucket", Labels: id + `,le="+Inf"`, Rate: rps},
			promtest.Series{Name: "istio_request_duration_milliseconds_sum", Labels: id, Rate: rps * meanMs(i)},
			promtest.Series{Name: "istio_request_duration_milliseconds_count", Labels: id, Rate: rps},
		)
	}
	prom, stop, err := promtest.StartWithExporter(t.TempDir(), promtest.NewExporter(series), time.Second, "istio_request_duration_milliseconds_bucket", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := prom.LoadRules(file); err != nil {
		t.Fatal(err)
	}
	if err := prom.WaitForSamples(RecordedQueries().Latency, 3, time.Minute); err != nil {
		t.Fatal(err)
	}
	client, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	evaluated := testQueries()
	recorded := RecordedQueries()
	// Both sides at the rules' last evaluation: the recorded values are
	// the expressions' at that instant, over the same samples.
	var now time.Time
	if err := promvector.Query(context.Background(), client, "max(timestamp("+recorded.Latency+"))", time.Now(), 10*time.Second, nil,
		func(_ []string, v float64) { now = time.UnixMilli(int64(math.Round(v * 1000))) }); err != nil || now.IsZero() {
		t.Fatalf("the rules' last evaluation: %v", err)
	}
	byQuery, err := Collector{Client: client, Queries: evaluated, Timeout: 10 * time.Second}.Collect(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	byRecord, err := Collector{Client: client, Queries: recorded, Timeout: 10 * time.Second}.Collect(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(math.Abs(a), math.Abs(b)) }
	pods := func(name string, a, b map[podKey]float64, want int) {
		if len(a) != want || len(b) != len(a) {
			t.Errorf("%s: %d pods by query, %d recorded; want %d", name, len(a), len(b), want)
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !near(v, w) {
				t.Errorf("%s of %v: %v by query, %v recorded", name, k, v, w)
			}
		}
	}
	pods("cpu", byQuery.CPU, byRecord.CPU, 2*len(testNodes))
	pods("requests", byQuery.Requests, byRecord.Requests, 2*len(testNodes))
	pods("errors", byQuery.Errors, byRecord.Errors, len(testNodes))
	pods("latency", byQuery.Latency, byRecord.Latency, len(testNodes))
	pods("latency-mean", byQuery.LatencyMean, byRecord.LatencyMean, len(testNodes))
	for i, n := range testNodes {
		if got := byQuery.LatencyMean[podKey{"shop", "backend-" + n}]; !near(got, meanMs(i)) {
			t.Errorf("mean latency of backend-%s %v ms, want the histogram's sum over its count, %v", n, got, meanMs(i))
		}
	}
	if len(byQuery.Calls) != 1 || len(byRecord.Calls) != 1 {
		t.Errorf("calls: %v by query, %v recorded", byQuery.Calls, byRecord.Calls)
	}
	for k, v := range byQuery.Calls {
		if !near(v, byRecord.Calls[k]) {
			t.Errorf("calls %v: %v by query, %v recorded", k, v, byRecord.Calls[k])
		}
	}
	if want := len(testNodes) * (len(testNodes) - 1); len(byQuery.DelayMs) != want || len(byRecord.DelayMs) != want {
		t.Errorf("delays: %d by query, %d recorded; want %d", len(byQuery.DelayMs), len(byRecord.DelayMs), want)
	}
	for k, v := range byQuery.DelayMs {
		if !near(v, byRecord.DelayMs[k]) {
			t.Errorf("delay %v: %v by query, %v recorded", k, v, byRecord.DelayMs[k])
		}
	}
}

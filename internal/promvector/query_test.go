package promvector

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/artt-dev/artt/internal/promtest"
)

// TestQueryMatchesClient asks a real Prometheus the collector's kinds of
// queries over series whose label values need escaping, and compares
// every sample Query reads with what the general client reads from the
// same server at the same time; through a gateway that refuses POST the
// query goes again as a GET; a bad query and a range-vector answer come
// back as errors that say so.
func TestQueryMatchesClient(t *testing.T) {
	if _, err := promtest.Binary(); err != nil {
		if promtest.Required() {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
	var series []promtest.Series
	odd := []string{`plain`, `quo\"te`, `back\\slash`, `new\nline`, `é-ünïcode`, `emoji-😀`}
	for i, v := range odd {
		series = append(series,
			promtest.Series{Name: "probe_duration_seconds", Labels: fmt.Sprintf(`job="artt-node-probe",source_node="n%d",target_node="%s"`, i, v), Value: 0.001 * float64(i+1)},
			promtest.Series{Name: "requests_total", Labels: fmt.Sprintf(`namespace="ns%d",pod="%s"`, i%2, v), Rate: float64(i + 1)},
		)
	}
	series = append(series, promtest.Series{Name: "requests_total", Labels: `namespace="ns0"`, Rate: 7})
	prom, stop, err := promtest.StartWithExporter(t.TempDir(), promtest.NewExporter(series), time.Second, `requests_total`, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	general := promv1.NewAPI(client)
	ctx := context.Background()
	at := time.Now()
	for _, c := range []struct {
		query  string
		labels []string
		want   int
	}{
		{`avg by (source_node, target_node) (probe_duration_seconds) * 1000 / 2`, []string{"source_node", "target_node"}, len(odd)},
		{`sum by (namespace, pod) (rate(requests_total[30s]))`, []string{"namespace", "pod"}, len(odd) + 1},
		{`sum(rate(requests_total[30s]))`, []string{"namespace"}, 1},
		{`requests_total{namespace="none"}`, []string{"namespace"}, 0},
	} {
		var got []string
		if err := Query(ctx, client, c.query, at, 10*time.Second, c.labels, func(l []string, v float64) {
			got = append(got, fmt.Sprintf("%q=%v", l, v))
		}); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		answer, _, err := general.Query(ctx, c.query, at)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, s := range answer.(model.Vector) {
			l := make([]string, len(c.labels))
			for k, name := range c.labels {
				l[k] = string(s.Metric[model.LabelName(name)])
			}
			want = append(want, fmt.Sprintf("%q=%v", l, float64(s.Value)))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || len(got) != c.want {
			t.Errorf("%s:\n Query reads   %v\n client reads %v (want %d samples)", c.query, got, want, c.want)
		}
	}
	// Behind a gateway that refuses POST, the query goes again as a GET.
	target, err := url.Parse(prom.URL)
	if err != nil {
		t.Fatal(err)
	}
	var posts, gets atomic.Int32
	forward := httputil.NewSingleHostReverseProxy(target)
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
			http.Error(w, "POST not allowed here", http.StatusMethodNotAllowed)
			return
		}
		gets.Add(1)
		forward.ServeHTTP(w, r)
	}))
	defer gateway.Close()
	behind, err := api.NewClient(api.Config{Address: gateway.URL})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := Query(ctx, behind, `sum by (namespace, pod) (rate(requests_total[30s]))`, at, 10*time.Second, []string{"pod"}, func([]string, float64) { n++ }); err != nil || n != len(odd)+1 {
		t.Errorf("through a gateway refusing POST: %d samples, %v; want %d", n, err, len(odd)+1)
	}
	if posts.Load() != 1 || gets.Load() != 1 {
		t.Errorf("the gateway saw %d POSTs and %d GETs, want one of each", posts.Load(), gets.Load())
	}

	for _, c := range []struct{ query, want string }{
		{`sum(`, "bad_data"},
		{`requests_total[1m]`, "not an instant vector"},
	} {
		err := Query(ctx, client, c.query, at, 10*time.Second, nil, func([]string, float64) {})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one saying %q", c.query, err, c.want)
		}
	}
}

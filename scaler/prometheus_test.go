package scaler

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artt-dev/artt/scaler/metric"
)

// TestCompressionIsAskedOnlyWhenEnabled polls the live test Prometheus
// through a proxy that records each query's Accept-Encoding: none by
// default, gzip with Compress(true), and the same answer either way.
func TestCompressionIsAskedOnlyWhenEnabled(t *testing.T) {
	needProm(t)
	var mu sync.Mutex
	var encodings []string
	address := promProxy(t, func(r *http.Request) {
		mu.Lock()
		encodings = append(encodings, r.Header.Get("Accept-Encoding"))
		mu.Unlock()
	})
	spec, err := ParseMetadata("shop", "so", webMetadata(map[string]string{"prometheusAddress": address}), address)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(-2 * time.Second)
	var answers []metric.Measurements
	for _, compress := range []bool{false, true} {
		encodings = nil
		m, err := NewPrometheusSource(nil).Compress(compress).Fetch(context.Background(), spec, now)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, m)
		want := ""
		if compress {
			want = "gzip"
		}
		if len(encodings) != 4 { // served, arrivals, CPU, CPU request
			t.Fatalf("compress %v: %d requests, want 4", compress, len(encodings))
		}
		for _, e := range encodings {
			if e != want {
				t.Errorf("compress %v: Accept-Encoding %q, want %q", compress, e, want)
			}
		}
	}
	if answers[0].CPURequest != answers[1].CPURequest || nonNaN(answers[0].Demand) != nonNaN(answers[1].Demand) || nonNaN(answers[0].Demand) == 0 {
		t.Errorf("answers differ or are empty: %+v / %+v", answers[0], answers[1])
	}
}

// A query whose answer passes --max-response-bytes is refused as the
// trigger's, naming its key, instead of being read whole: here an override
// that forgot to aggregate, its every series a range of points.
func TestAnAnswerPastTheBoundNamesTheQuery(t *testing.T) {
	needProm(t)
	md := webMetadata(map[string]string{"cpuUsageQuery": `container_cpu_usage_seconds_total{namespace="{{.Namespace}}"}`})
	spec, err := ParseMetadata("shop", "web", md, prom.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPrometheusSource(nil).MaxResponseBytes(2000).Fetch(context.Background(), spec, time.Now())
	var me *metric.MetadataError
	if !errors.As(err, &me) || me.Key != "cpuUsageQuery" || !strings.Contains(me.Reason, "passed 2000 bytes") {
		t.Fatalf("error %v; want the cpuUsageQuery refused for passing 2000 bytes", err)
	}
	if _, err := NewPrometheusSource(nil).Fetch(context.Background(), spec, time.Now()); errors.As(err, &me) && strings.Contains(me.Reason, "bytes") {
		t.Errorf("at the default bound the same query was refused for its size: %v", err)
	}
}

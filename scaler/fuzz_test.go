package scaler

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artt-dev/artt/scaler/metric"
)

// FuzzParseMetadata feeds arbitrary trigger metadata through the parser
// and the tenancy check: never a panic; a refusal names a key the metadata
// holds (or the namespace); an acceptance renders queries that keep the
// ScaledObject's namespace quoted as the only namespace they select.
func FuzzParseMetadata(f *testing.F) {
	f.Add("shop", "web", "window", "40", "rateWindow", "1m", "http://prometheus.monitoring:9090")
	f.Add("shop", `web"} or vector(1) #`, "history", "-1", "step", "0s", "http://prometheus.monitoring:9090")
	f.Add(`a",namespace=~".*`, "web", "cpuUsageQuery", "sum({{.Namespace}})", "mode", "lare", "ftp://x")
	f.Add("shop", "web", "prometheusAddress", "http://prometheus.monitoring:9090@evil", "seed", "7", "http://prometheus.monitoring:9090")
	f.Fuzz(func(t *testing.T, namespace, workload, k1, v1, k2, v2, defaultProm string) {
		md := map[string]string{"workload": workload, k1: v1, k2: v2}
		spec, err := ParseMetadata(namespace, "so", md, defaultProm)
		if err == nil {
			err = Tenancy{}.admit(md, spec, defaultProm)
		}
		if err != nil {
			var me *metric.MetadataError
			if !errors.As(err, &me) {
				return // a threshold.FieldError or a template error: both name their field
			}
			if _, ok := md[me.Key]; !ok && me.Key != "namespace" && me.Key != "prometheusAddress" && me.Key != "workload" {
				t.Fatalf("refusal names %q, which the metadata does not hold: %v", me.Key, err)
			}
			return
		}
		for _, q := range []string{spec.CPUUsageQuery, spec.CPURequestQuery, spec.RequestRateQuery} {
			if strings.Count(q, `namespace="`+namespace+`"`)+strings.Count(q, `destination_workload_namespace="`+namespace+`"`) == 0 {
				t.Fatalf("query %q does not select namespace %q", q, namespace)
			}
			if strings.Contains(q, "=~\".*\"") || strings.Contains(q, "\n") {
				t.Fatalf("query %q widened by interpolation", q)
			}
		}
	})
}

// FuzzEvaluate feeds arbitrary measurements (NaN, infinities, negatives,
// mismatched lengths) to the evaluation: an error or a threshold within
// the configured bounds and finite metric values, never a panic.
func FuzzEvaluate(f *testing.F) {
	f.Add([]byte{10, 20, 30, 40, 50, 60, 70, 80}, []byte{1, 2, 3, 4, 5, 6, 7, 8}, 2.0)
	f.Add([]byte{0, 0, 0, 0, 0, 0}, []byte{255, 255, 0, 0, 1, 1}, 0.0)
	f.Fuzz(func(t *testing.T, demandRaw, cpuRaw []byte, request float64) {
		decode := func(raw []byte) []float64 {
			out := make([]float64, len(raw))
			for i, b := range raw {
				switch b {
				case 0:
					out[i] = math.NaN()
				case 1:
					out[i] = math.Inf(1)
				case 2:
					out[i] = -float64(i)
				case 3:
					out[i] = math.SmallestNonzeroFloat64
				case 4:
					out[i] = math.MaxFloat64
				default:
					out[i] = float64(b)
				}
			}
			return out
		}
		spec, err := ParseMetadata("shop", "so", map[string]string{"workload": "web", "window": "5", "history": "5"}, "http://prometheus.monitoring:9090")
		if err != nil {
			t.Fatal(err)
		}
		ev, err := metric.Evaluate(spec.Settings, metric.Measurements{Demand: decode(demandRaw), CPU: decode(cpuRaw), CPURequest: request})
		if err != nil {
			return
		}
		th := ev.Threshold.Threshold
		if !(th >= spec.Threshold.MinThreshold && th <= spec.Threshold.MaxThreshold) {
			t.Fatalf("threshold %v outside [%v, %v]", th, spec.Threshold.MinThreshold, spec.Threshold.MaxThreshold)
		}
		for _, form := range []metric.Form{metric.FormNormalized, metric.FormUtilization} {
			if v := ev.MetricValue(form); math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("%s metric value %v", form, v)
			}
		}
	})
}

// FuzzPrometheusResponse serves arbitrary bytes as Prometheus's answer to
// every query: Fetch returns an error or measurements of the expected
// length, never a panic, and Evaluate then answers or errs.
func FuzzPrometheusResponse(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],[2,"2"]]}]}}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"NaN"]}]}}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"1"},"values":[]},{"metric":{"a":"2"},"values":[[1e300,"+Inf"]]}]}}`))
	f.Add([]byte(`{"status":"error","errorType":"bad_data","error":"parse error"}`))
	f.Add([]byte(`not json`))
	var mu sync.Mutex
	var body []byte
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer ts.Close()
	spec, err := ParseMetadata("shop", "so", map[string]string{"workload": "web", "window": "5", "history": "3", "step": "1s", "queryTimeout": "1s"}, ts.URL)
	if err != nil {
		f.Fatal(err)
	}
	src := NewPrometheusSource(nil)
	f.Fuzz(func(t *testing.T, answer []byte) {
		mu.Lock()
		body = answer
		mu.Unlock()
		m, err := src.Fetch(context.Background(), spec, time.Unix(1_000_000, 0))
		if err != nil {
			return
		}
		if len(m.Demand) != spec.Points() || len(m.CPU) != spec.Points() {
			t.Fatalf("%d demand and %d CPU samples, want %d each", len(m.Demand), len(m.CPU), spec.Points())
		}
		_, _ = metric.Evaluate(spec.Settings, m)
	})
}

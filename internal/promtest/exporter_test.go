package promtest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// TestCounterRatesHoldWhenScrapesAreAnsweredLate has every third scrape
// answered 400 ms after Prometheus began it, as a loaded machine answers
// them. A counter worked out when the answer is written, but stamped by
// Prometheus when the scrape began, then reads up to a third off over a 5 s
// window; cAdvisor stamps its container counters itself, and so must the
// exporter, for rate() to read the rate the series was given. The queries
// read two scrapes back, where every scrape has landed: at the newest
// instant a scrape still in flight leaves a gap at the window's end that
// rate() does not extrapolate over, however the samples are stamped.
func TestCounterRatesHoldWhenScrapesAreAnsweredLate(t *testing.T) {
	if _, err := Binary(); err != nil {
		if Required() {
			t.Fatalf("Prometheus is required but missing: %v", err)
		}
		t.Skipf("Prometheus not installed, skipping: %v", err)
	}
	const cpu = `container_cpu_usage_seconds_total{namespace="shop",pod="web-0",container="app"}`
	exp := NewExporter([]Series{{Name: "container_cpu_usage_seconds_total", Labels: `namespace="shop",pod="web-0",container="app"`, Rate: 0.6}})
	exp.StampEvery(time.Second)
	var scrapes atomic.Int64
	late := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scrapes.Add(1)%3 == 0 {
			time.Sleep(400 * time.Millisecond)
		}
		exp.ServeHTTP(w, r)
	})
	server, stop, err := StartWithExporter(t.TempDir(), late, time.Second, cpu, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	worst := 0.0
	for i := 0; i < 20; i++ {
		got, err := server.instant(fmt.Sprintf("rate(%s[5s])", cpu), time.Now().Add(-2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		worst = math.Max(worst, math.Abs(got-0.6)/0.6)
		time.Sleep(230 * time.Millisecond) // 20 phases against the 1 s scrape
	}
	if worst > 0.01 {
		t.Errorf("rate() over 5 s read up to %.1f%% off the counter's 0.6 per second, want within 1%%", 100*worst)
	}
}

// instant evaluates query at a time and returns its single value.
func (s *Server) instant(query string, at time.Time) (float64, error) {
	q := url.Values{"query": {query}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}
	resp, err := http.Get(s.URL + "/api/v1/query?" + q.Encode())
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	if len(body.Data.Result) != 1 {
		return 0, fmt.Errorf("%s: %d series, want 1", query, len(body.Data.Result))
	}
	v, _ := body.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(v, 64)
}

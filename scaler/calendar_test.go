package scaler

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/internal/promtest"
)

// The calendar's default query, on a real Prometheus holding a backfilled
// TSDB block of three 10-minute periods of the sidecars' arrival counter
// (Envoy's name and labels, two pods): 20 requests per second, and 100
// during the fifth minute of each period. As that minute comes round
// again, the history read is the minute means as written, and the forecast
// peak is the demand now plus the rise of 80 the two earlier periods agree
// on. The samples are 7 s off the minute, so no sample sits on a rate
// window's edge, where Prometheus' releases disagree on whether it is in.
func TestTheCalendarReadsItsHistoryFromPrometheus(t *testing.T) {
	if _, err := promtest.Binary(); err != nil {
		if promtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	const period = 10 * time.Minute
	rateAt := func(phase time.Duration) float64 {
		if phase >= 4*time.Minute && phase < 5*time.Minute {
			return 100
		}
		return 20
	}
	// now is as the fifth minute of the third period begins.
	start := time.Now().Add(-2*period - 4*time.Minute).Truncate(period)
	now := start.Add(2*period + 4*time.Minute)
	var h promtest.History
	total := [2]float64{}
	for at := start.Add(7*time.Second - time.Minute); at.Before(now); at = at.Add(15 * time.Second) {
		for i, pod := range []string{"web-5d8f9c7b6-abcde", "web-5d8f9c7b6-fghij"} {
			h.Counter("envoy_http_downstream_rq_total", `namespace="shop",pod="`+pod+`",envoy_http_conn_manager_prefix="inbound_0.0.0.0_8080"`, at, total[i])
			total[i] += rateAt(at.Sub(start)%period) / 2 * 15
		}
	}
	server, err := promtest.StartWithHistory(t.TempDir(), &h, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Stop() })

	md := webMetadata(map[string]string{"normalization": "calendar", "calendarPeriod": "10m", "calendarStep": "1m",
		"calendarPeriods": "2", "leadTime": "1m"})
	spec, err := ParseMetadata("shop", "web", md, server.URL)
	if err != nil {
		t.Fatal(err)
	}
	source := NewPrometheusSource(nil)
	api, err := source.client(server.URL)
	if err != nil {
		t.Fatal(err)
	}
	history, err := source.calendarQuery(context.Background(), api, spec, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != spec.Calendar.Points() || len(history) != 21 {
		t.Fatalf("%d points, want 2 periods of 10 minutes and now: 21", len(history))
	}
	for i, got := range history {
		at := now.Add(-time.Duration(len(history)-1-i) * time.Minute)
		// rate() over the minute ending at `at`: the minute [at−1m, at).
		want := rateAt(at.Add(-time.Minute).Sub(start) % period)
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("point %d (%s): %v requests per second, want %v", i, at.Format(time.TimeOnly), got, want)
		}
	}
	f, ok := spec.Forecaster().Forecast(history, 20)
	if !ok || math.Abs(f.Peak-100) > 1e-6 || f.Headroom > 1e-6 || f.Periods != 2 {
		t.Fatalf("forecast %+v (ok %v); want a peak of 20 + 80 from 2 periods, and no headroom: they agree", f, ok)
	}
}

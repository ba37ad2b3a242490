package scaler

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"
)

// pointCounter is a proxy in front of the test Prometheus that counts the
// points each range query asks for.
type pointCounter struct {
	mu     sync.Mutex
	points int
	ranges int
}

func (c *pointCounter) proxy(t *testing.T) string {
	return promProxy(t, func(r *http.Request) {
		if r.URL.Path != "/api/v1/query_range" {
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return
		}
		for k, v := range r.URL.Query() {
			form[k] = v
		}
		start, _ := strconv.ParseFloat(form.Get("start"), 64)
		end, _ := strconv.ParseFloat(form.Get("end"), 64)
		step, _ := strconv.ParseFloat(form.Get("step"), 64)
		c.mu.Lock()
		c.ranges++
		c.points += int(math.Round((end-start)/step)) + 1
		c.mu.Unlock()
	})
}

// promProxy serves the test Prometheus through a proxy that shows each
// request to see first, and returns the proxy's URL.
func promProxy(t *testing.T, see func(*http.Request)) string {
	t.Helper()
	target, err := url.Parse(prom.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		see(r)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestReusedRangesEqualWholeRanges polls the live test Prometheus twice at
// each of several instants: through a source that reuses settled points,
// and through a fresh source that asks for the whole ranges. The answers
// must be identical point for point, while the reusing source asks for
// only the new and unsettled points after its first poll.
func TestReusedRangesEqualWholeRanges(t *testing.T) {
	needProm(t)
	var counted pointCounter
	address := counted.proxy(t)
	spec, err := ParseMetadata("shop", "so", webMetadata(map[string]string{"prometheusAddress": address}), address)
	if err != nil {
		t.Fatal(err)
	}
	var observedAsked, observedReused int // written by the two range queries' goroutines
	var observedMu sync.Mutex
	reusing := NewPrometheusSource(nil).ReuseRanges(3*time.Second, time.Minute, time.Minute).
		ObservePoints(func(asked, reused int) {
			observedMu.Lock()
			defer observedMu.Unlock()
			observedAsked += asked
			observedReused += reused
		})
	n := spec.Points()
	// Instants a few seconds in the past, so every sample they cover has
	// been scraped and both sources read the same data.
	base := time.Now()
	for poll, offset := range []time.Duration{0, time.Second, 3 * time.Second, 3 * time.Second, 7 * time.Second, 20 * time.Second} {
		if wait := time.Until(base.Add(offset).Add(5 * time.Second)); wait > 0 {
			time.Sleep(wait)
		}
		now := base.Add(offset)
		before := counted.points
		got, err := reusing.Fetch(context.Background(), spec, now)
		if err != nil {
			t.Fatal(err)
		}
		asked := counted.points - before
		want, err := NewPrometheusSource(nil).Fetch(context.Background(), spec, now)
		if err != nil {
			t.Fatal(err)
		}
		for name, pair := range map[string][2][]float64{"demand": {got.Demand, want.Demand}, "arrivals": {got.Arrivals, want.Arrivals}, "cpu": {got.CPU, want.CPU}} {
			for i := range pair[1] {
				g, w := pair[0][i], pair[1][i]
				if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
					t.Fatalf("poll %d, %s point %d: reused %v, whole range %v", poll, name, i, g, w)
				}
			}
		}
		if nonNaN(want.Demand) == 0 {
			t.Fatalf("poll %d: the whole range holds no demand; nothing was compared", poll)
		}
		// Three range queries per poll (served, arrivals, CPU). The first asks for every point; a
		// later one within the range asks again for the points younger than
		// the settle margin before its previous newest point, and the new
		// ones: 3 s of margin at a 1 s step is 3 points, plus the seconds
		// since the previous poll.
		const ranges = 3
		wantAsked := ranges * n
		switch poll {
		case 1:
			wantAsked = ranges * (3 + 1)
		case 2:
			wantAsked = ranges * (3 + 2)
		case 3:
			wantAsked = ranges * 3
		case 4:
			wantAsked = ranges * (3 + 4)
		}
		if asked != wantAsked {
			t.Errorf("poll %d at +%v asked for %d points, want %d", poll, offset, asked, wantAsked)
		}
		// The telemetry sees the same points, and every other point reused.
		if observedAsked != asked || observedAsked+observedReused != ranges*n {
			t.Errorf("poll %d: observed %d points asked and %d reused; the proxy saw %d asked of %d", poll, observedAsked, observedReused, asked, ranges*n)
		}
		observedAsked, observedReused = 0, 0
		// The whole-range source's own query.
		if counted.points-before-asked != ranges*n {
			t.Fatalf("the whole-range source asked for %d points, want %d", counted.points-before-asked, ranges*n)
		}
	}
	if reusing.ranges.len() != 3 {
		t.Errorf("%d ranges kept, want 3", reusing.ranges.len())
	}
}

func nonNaN(xs []float64) int {
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			n++
		}
	}
	return n
}

// A range's points Prometheus first had no value for (here its first
// answers are emptied on the way, as before a past is backfilled) are
// taken as settled until the gap retry has passed, and then asked again:
// the answer is the whole range's.
func TestEmptyPointsAreAskedAgainAfterTheGapRetry(t *testing.T) {
	needProm(t)
	target, err := url.Parse(prom.URL)
	if err != nil {
		t.Fatal(err)
	}
	var emptied sync.Map // a query's text, once its first answer was emptied
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/query_range" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			form, _ := url.ParseQuery(string(body))
			if _, done := emptied.LoadOrStore(form.Get("query")+r.URL.Query().Get("query"), true); !done {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	spec, err := ParseMetadata("shop", "so", webMetadata(map[string]string{"prometheusAddress": srv.URL}), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	const retry = 5 * time.Second
	reusing := NewPrometheusSource(nil).ReuseRanges(3*time.Second, time.Minute, retry)
	base := time.Now()
	for poll, offset := range []time.Duration{0, time.Second, retry + time.Second} {
		if wait := time.Until(base.Add(offset).Add(5 * time.Second)); wait > 0 {
			time.Sleep(wait)
		}
		now := base.Add(offset)
		got, err := reusing.Fetch(context.Background(), spec, now)
		if err != nil {
			t.Fatal(err)
		}
		want, err := NewPrometheusSource(nil).Fetch(context.Background(), spec, now)
		if err != nil {
			t.Fatal(err)
		}
		// The points settled at the second poll: all but the margin's and
		// the new second's.
		settled := spec.Points() - 4
		switch poll {
		case 0:
			if nonNaN(got.Demand) != 0 {
				t.Fatalf("the first answer was emptied, yet %d points hold a value", nonNaN(got.Demand))
			}
		case 1:
			if n := nonNaN(got.Demand[:settled]); n != 0 {
				t.Errorf("before the retry, %d settled points were asked again", n)
			}
			if nonNaN(want.Demand[:settled]) == 0 {
				t.Fatal("the whole range holds no demand among the settled points; nothing was compared")
			}
		case 2:
			for i := range want.Demand {
				g, w := got.Demand[i], want.Demand[i]
				if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
					t.Fatalf("after the retry, point %d: reused %v, whole range %v", i, g, w)
				}
			}
		}
	}
}

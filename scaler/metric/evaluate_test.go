package metric

import (
	"math"
	"strings"
	"testing"
)

// Measurements whose utilisation overflows a float are refused with both
// values named, rather than reported to the HPA as +Inf.
func TestOutOfRangeMeasurementsAreRefused(t *testing.T) {
	spec, err := ParseSettings(map[string]string{"window": "5", "history": "5"})
	if err != nil {
		t.Fatal(err)
	}
	demand := []float64{10, 10, 10, 10, 10, 10}
	for _, tc := range []struct {
		name       string
		cpu        float64
		request    float64
		wantInText string
	}{
		{"usage near the largest float", math.MaxFloat64, 100, "1.7976931348623157e+308"},
		{"request near the smallest float", 2, 1e-308, "1e-308"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpu := []float64{1, 1, 1, 1, 1, tc.cpu}
			_, err := Evaluate(spec, Measurements{Demand: demand, CPU: cpu, CPURequest: tc.request})
			if err == nil || !strings.Contains(err.Error(), tc.wantInText) {
				t.Fatalf("error %v, want one naming %s", err, tc.wantInText)
			}
		})
	}
	ev, err := Evaluate(spec, Measurements{Demand: demand, CPU: []float64{1, 1, 1, 1, 1, 1e300}, CPURequest: 1})
	if err != nil {
		t.Fatalf("a finite utilisation of 1e302%% is refused: %v", err)
	}
	if got := ev.MetricValue(FormUtilization); got != 1e302 {
		t.Errorf("utilisation %v, want 1e302", got)
	}
}

// Offered load, worked by hand. Ten samples: 20 requests per second served
// and arriving at 0.2 cores (10 ms each) on a request of 0.5 cores: 40%.
// Then a backlog.
func TestOfferedUtilizationPricesArrivalsAtTheUnbackloggedCost(t *testing.T) {
	spec, err := ParseSettings(map[string]string{"window": "10", "history": "1"})
	if err != nil {
		t.Fatal(err)
	}
	series := func(calm, newest float64) []float64 {
		xs := make([]float64, 10)
		for i := range xs {
			xs[i] = calm
		}
		xs[9] = newest
		return xs
	}
	cases := []struct {
		name                   string
		served, arrived, cpu   float64
		wantUtil, wantOffered  float64
		arrivalsUnknown, noOff bool
	}{
		// Saturated pods: 50 served of 140 arriving at their 0.5-core
		// request. The CPU per request without a backlog (10 ms) prices the
		// 140: 1.4 cores, 280% of the request.
		{name: "saturated", served: 50, arrived: 140, cpu: 0.5, wantUtil: 100, wantOffered: 280},
		// A pod waiting on a saturated callee: it starts 40 requests per
		// second at 10 ms each (0.4 cores) but completes 25. Its CPU over
		// its completions (16 ms) would overstate its cost; 40 × 10 ms
		// is what it needs: 80%.
		{name: "waiting on a callee", served: 25, arrived: 40, cpu: 0.4, wantUtil: 80, wantOffered: 80},
		// Within 10% of what is served: no backlog, the measured 44%.
		{name: "no backlog", served: 22, arrived: 24, cpu: 0.22, wantUtil: 44, wantOffered: 44},
		// Draining a backlog: twice as many served as arrive, at 100%. The
		// arrivals need 50%; the drain holds the count at the threshold
		// (wantOffered −1: θ) and does not raise it.
		{name: "draining", served: 60, arrived: 30, cpu: 0.5, wantUtil: 100, wantOffered: -1},
		// A shorter drain: 60 served, 50 arriving need 83⅓%, above θ.
		{name: "draining, arrivals above θ", served: 60, arrived: 50, cpu: 0.5, wantUtil: 100, wantOffered: 100 * 50.0 / 60},
		// Draining below the threshold: the 40% measured stands, so the
		// count does not fall while the pods drain.
		{name: "draining below θ", served: 30, arrived: 20, cpu: 0.2, wantUtil: 40, wantOffered: 40},
		{name: "arrivals not measured", served: 50, arrived: 140, cpu: 0.5, wantUtil: 100, wantOffered: 100, arrivalsUnknown: true},
		{name: "offered load off", served: 50, arrived: 140, cpu: 0.5, wantUtil: 100, wantOffered: 100, noOff: true},
	}
	for _, c := range cases {
		m := Measurements{Demand: series(20, c.served), Arrivals: series(20, c.arrived), CPU: series(0.2, c.cpu), CPURequest: 0.5}
		if c.arrivalsUnknown {
			m.Arrivals = series(math.NaN(), math.NaN())
		}
		s := spec
		s.OfferedLoad = !c.noOff
		ev, err := Evaluate(s, m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.wantOffered == -1 {
			c.wantOffered = ev.Threshold.Threshold
		}
		if math.Abs(ev.Utilization-c.wantUtil) > 1e-9 || math.Abs(ev.OfferedUtilization-c.wantOffered) > 1e-9 {
			t.Errorf("%s: utilisation %v, offered %v; want %v, %v", c.name, ev.Utilization, ev.OfferedUtilization, c.wantUtil, c.wantOffered)
		}
		if want := 100 * c.wantOffered / ev.Threshold.Threshold; math.Abs(ev.MetricValue(FormNormalized)-want) > 1e-9 {
			t.Errorf("%s: metric %v, want 100 × offered ÷ θ = %v", c.name, ev.MetricValue(FormNormalized), want)
		}
	}
	// The cost closest to now prices the arrivals: requests cost 30 ms for
	// most of the window, then 10 ms for the two samples before the
	// backlog. 140 arriving × 10 ms is 1.4 cores, 280%, not the 30 ms of the
	// window's older samples.
	m := Measurements{Demand: series(20, 50), Arrivals: series(20, 140), CPU: series(0.6, 0.5), CPURequest: 0.5}
	m.CPU[7], m.CPU[8] = 0.2, 0.2
	ev, err := Evaluate(spec, m)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ev.OfferedUtilization-280) > 1e-9 {
		t.Errorf("after a change of cost: offered %v, want 280 (the newest unbacklogged cost)", ev.OfferedUtilization)
	}
}

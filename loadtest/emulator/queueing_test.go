package emulator

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// stations is n identical pods on one node with enough cores, no network
// delay, fed Poisson arrivals through the given number of gateway replicas:
// the queueing settings the emulator is checked against.
type stations struct {
	n, workers, gateways int
	limit, lambda, mu    float64 // cores per pod, arrivals and services per second
	requests             int
	routing              string
	seed                 uint64
	warmup               float64 // fraction of the run not measured
}

func (q stations) scenario() *scenario.Scenario {
	zero := 0.0
	dur := float64(q.requests) / q.lambda
	sc := &scenario.Scenario{
		Name:     "queue",
		Duration: scenario.Duration{Duration: time.Duration(dur * float64(time.Second))},
		Warmup:   scenario.Duration{Duration: time.Duration(dur * q.warmup * float64(time.Second))},
		Seed:     q.seed,
		Cluster: scenario.Cluster{
			Nodes:   []scenario.Node{{Name: "n", Cores: math.Max(64, float64(q.n)*q.limit), Speed: 1}},
			Delays:  scenario.Delays{LocalMs: &zero},
			Ingress: scenario.Ingress{Replicas: q.gateways},
		},
		Application: scenario.Application{Components: []scenario.Component{{
			Name: "s", CPUPerRequest: scenario.Duration{Duration: time.Duration(float64(time.Second) / q.mu)},
			CPULimit: q.limit, CPURequest: q.limit, Workers: q.workers, Replicas: q.n,
		}}},
		Workload: scenario.Workload{Type: "constant", Rate: q.lambda, Timeout: scenario.Duration{Duration: scenario.MaxTimeout}},
		Control:  scenario.Control{SampleInterval: scenario.Duration{Duration: scenario.MaxDuration}},
		Runs:     []scenario.Run{{Routing: q.routing}},
	}
	if err := sc.FillAndValidate(); err != nil {
		panic(err)
	}
	return sc
}

// single is one pod reached at random: a single queueing station.
func single(workers int, limit float64, lambda, mu float64, requests int) *scenario.Scenario {
	return stations{n: 1, workers: workers, gateways: 2, limit: limit, lambda: lambda, mu: mu,
		requests: requests, routing: "random", seed: 7, warmup: 0.02}.scenario()
}

func runQueue(t *testing.T, sc *scenario.Scenario) *outcome.Result {
	t.Helper()
	return runAtRate(t, sc, workload.Constant(sc.Workload.Rate))
}

// runAtRate runs the scenario's first run under the given arrival rate.
func runAtRate(t *testing.T, sc *scenario.Scenario, rate workload.Rate) *outcome.Result {
	t.Helper()
	return runWith(t, sc, rate, Options{})
}

// runWith runs the scenario's first run under the given arrival rate and
// options.
func runWith(t *testing.T, sc *scenario.Scenario, rate workload.Rate, opts Options) *outcome.Result {
	t.Helper()
	e, err := New(sc, sc.Runs[0], rate, opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// erlangC is the probability that an arrival waits in M/M/c.
func erlangC(c int, a float64) float64 {
	sum, term := 0.0, 1.0
	for k := 0; k < c; k++ {
		if k > 0 {
			term *= a / float64(k)
		}
		sum += term
	}
	last := term * a / float64(c)
	rho := a / float64(c)
	top := last / (1 - rho)
	return top / (sum + top)
}

// mmcSojournTail is P(T > t) for M/M/c FCFS.
func mmcSojournTail(c int, lambda, mu, t float64) float64 {
	a := lambda / mu
	pw := erlangC(c, a)
	theta := float64(c)*mu - lambda
	if math.Abs(theta-mu) < 1e-12 {
		return math.Exp(-mu*t) * (1 + pw*mu*t)
	}
	return math.Exp(-mu*t) + pw*mu/(theta-mu)*(math.Exp(-mu*t)-math.Exp(-theta*t))
}

func quantileOfTail(tail func(float64) float64, p float64) float64 {
	lo, hi := 0.0, 1.0
	for tail(hi) > 1-p {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if tail(mid) > 1-p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*want {
		t.Errorf("%s = %.4f, want %.4f ± %.0f%%", what, got, want, 100*tol)
	} else {
		t.Logf("%s = %.4f (closed form %.4f, %+.2f%%)", what, got, want, 100*(got-want)/want)
	}
}

// TestAgainstClosedForms checks the emulator's queueing against theory:
// M/M/1 and M/M/c (FCFS) mean and P99 sojourn time, and processor sharing's
// mean sojourn 1/(μ−λ), at loads 0.5 and 0.9, within 2%.
func TestAgainstClosedForms(t *testing.T) {
	if testing.Short() {
		t.Skip("long: several million simulated requests")
	}
	const mu = 1000.0 // 1 ms mean service
	for _, rho := range []float64{0.5, 0.9} {
		n := 2_000_000
		if rho == 0.9 {
			n = 6_000_000
		}
		t.Run(fmt.Sprintf("MM1-FCFS/rho=%.1f", rho), func(t *testing.T) {
			lambda := rho * mu
			r := runQueue(t, single(1, 1, lambda, mu, n))
			within(t, "mean ms", r.MeanMs, 1000/(mu-lambda), 0.02)
			within(t, "P99 ms", r.P99Ms, 1000*math.Log(100)/(mu-lambda), 0.02)
		})
		t.Run(fmt.Sprintf("MM4-FCFS/rho=%.1f", rho), func(t *testing.T) {
			const c = 4
			lambda := rho * mu * c
			r := runQueue(t, single(c, c, lambda, mu, n))
			a := lambda / mu
			mean := erlangC(c, a)/(c*mu-lambda) + 1/mu
			within(t, "mean ms", r.MeanMs, 1000*mean, 0.02)
			p99 := quantileOfTail(func(x float64) float64 { return mmcSojournTail(c, lambda, mu, x) }, 0.99)
			within(t, "P99 ms", r.P99Ms, 1000*p99, 0.02)
		})
		t.Run(fmt.Sprintf("MM1-PS/rho=%.1f", rho), func(t *testing.T) {
			lambda := rho * mu
			r := runQueue(t, single(0, 1, lambda, mu, n))
			within(t, "mean ms", r.MeanMs, 1000/(mu-lambda), 0.02)
		})
	}
}

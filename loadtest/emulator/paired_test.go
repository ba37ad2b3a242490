package emulator

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/loadtest/workload"
)

// pairedChain is a front calling a back, one pod of each on each of three
// speed-1 nodes with jittered links, two gateways, at a load nothing times
// out under: every request's work is done whatever routes it.
func pairedChain(routing string) *scenario.Scenario {
	sc := &scenario.Scenario{
		Name:     "paired",
		Duration: scenario.Duration{Duration: 20 * time.Second},
		Seed:     3,
		Cluster: scenario.Cluster{
			Delays:  scenario.Delays{DefaultMs: 1, JitterMs: 0.3},
			Ingress: scenario.Ingress{Replicas: 2},
		},
		Workload: scenario.Workload{Type: "constant", Rate: 400, Timeout: scenario.Duration{Duration: 5 * time.Second}},
		Control:  scenario.Control{SampleInterval: scenario.Duration{Duration: time.Second}},
		Runs:     []scenario.Run{{Routing: routing}},
	}
	var nodes []string
	for i := range 3 {
		name := fmt.Sprintf("n%d", i)
		sc.Cluster.Nodes = append(sc.Cluster.Nodes, scenario.Node{Name: name, Cores: 4, Speed: 1})
		nodes = append(nodes, name)
	}
	for _, c := range []struct {
		name  string
		calls []string
	}{{"front", []string{"back"}}, {"back", nil}} {
		sc.Application.Components = append(sc.Application.Components, scenario.Component{
			Name: c.name, Calls: c.calls, CPUPerRequest: scenario.Duration{Duration: 2 * time.Millisecond},
			CPULimit: 1, CPURequest: 1, Replicas: 3, Placement: nodes,
		})
	}
	sc.Application.Entry = "front"
	if err := sc.FillAndValidate(); err != nil {
		panic(err)
	}
	return sc
}

// TestPoliciesSeeTheSameRequests: two balancers at one seed get the same
// arrivals at the same times and the same work for every call, though they
// send the calls to different pods. With one stream for everything, the
// first pick that differed would change every arrival and draw after it.
func TestPoliciesSeeTheSameRequests(t *testing.T) {
	type seen struct {
		requests int64
		rates    []float64
		cpu      map[string]float64 // CPU seconds per component: its work, on speed-1 nodes
		arrivals []int64            // per pod
	}
	run := func(routing string) seen {
		sc := pairedChain(routing)
		e, err := New(sc, sc.Runs[0], workload.Constant(sc.Workload.Rate), Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Run()
		if err != nil {
			t.Fatal(err)
		}
		if r.Timeouts+r.Errors > 0 {
			t.Fatalf("%s: %d timeouts and %d errors; the check needs every request's work done", routing, r.Timeouts, r.Errors)
		}
		s := seen{requests: r.Requests, cpu: map[string]float64{}}
		for _, p := range r.Series {
			s.rates = append(s.rates, p.Rate)
		}
		for _, p := range e.pods {
			s.cpu[p.comp.spec.Name] += p.cpuSeconds
			s.arrivals = append(s.arrivals, p.arrivals)
		}
		return s
	}
	random, lr := run("random"), run("least-request")

	if fmt.Sprint(random.arrivals) == fmt.Sprint(lr.arrivals) {
		t.Fatalf("both balancers sent each pod the same calls (%v): nothing tells their streams apart", random.arrivals)
	}
	if random.requests != lr.requests {
		t.Errorf("arrivals differ: %d requests under random, %d under least-request", random.requests, lr.requests)
	}
	for i := range min(len(random.rates), len(lr.rates)) {
		if random.rates[i] != lr.rates[i] {
			t.Errorf("second %d: %v arrivals per second under random, %v under least-request", i, random.rates[i], lr.rates[i])
			break
		}
	}
	for comp, want := range random.cpu {
		if got := lr.cpu[comp]; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s's work: %.9f CPU seconds under least-request, %.9f under random", comp, got, want)
		}
	}
}

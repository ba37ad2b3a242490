package live_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/live"
	"github.com/artt-dev/artt/loadtest/scenario"
)

// The slowdowns a node's CPU per request does not show, on the live loop
// (testdata/slowdowns.yaml, whose events the harness plays): a neighbour of
// four busy threads in n1's cgroup from 35 s to 60 s, then n2's quota cut
// to a fifth from 65 s to 85 s. Under ARTT each node's weights must fall
// within two scrapes and a fast-path pass (checkWeightsFall); the same
// events are run under gRPC's least-request, and the requests each routing
// lost in the 10 s after each event are reported side by side.
func TestLiveSlowedNodes(t *testing.T) {
	needLive(t)
	plan, err := live.NewPlan("testdata/slowdowns.yaml", live.DefaultMaxCores)
	if err != nil {
		t.Fatal(err)
	}
	ctx, h := startHarness(t, plan)
	slowing := slowingEvents(plan.Scenario)
	for i, run := range plan.Runs {
		m, err := h.Run(ctx, i, func(ctx context.Context, a *live.Active) error {
			for _, ev := range slowing {
				if err := checkEvent(ctx, t, a, ev, run.Routing == "artt"); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range slowing {
			at := ev.At.Seconds()
			sent, lost, p99 := window(m, at, at+10)
			t.Logf("%s, %s at %.0f s: of the %d requests sent in the next 10 s, %d lost; P99 of the rest %.1f ms", run.Label(), describe(ev), at, sent, lost, p99)
		}
	}
}

// slowingEvents are the scenario's events that slow a node (not those
// that end a slowdown).
func slowingEvents(sc *scenario.Scenario) []scenario.Event {
	var out []scenario.Event
	for _, ev := range sc.Events {
		if cores := nodeCores(sc, ev.Node); (ev.Type == "node-contention" && ev.Cores > 0) || (ev.Type == "node-quota" && ev.Cores < cores) {
			out = append(out, ev)
		}
	}
	return out
}

func nodeCores(sc *scenario.Scenario, node string) float64 {
	for _, n := range sc.Cluster.Nodes {
		if n.Name == node {
			return n.Cores
		}
	}
	return 0
}

func describe(ev scenario.Event) string {
	if ev.Type == "node-contention" {
		return fmt.Sprintf("%s contended by %g busy threads", ev.Node, ev.Cores)
	}
	return fmt.Sprintf("%s's quota cut to %g cores", ev.Node, ev.Cores)
}

// checkEvent waits for the harness to play ev. Under ARTT it checks that
// the weights to the node fall (checkWeightsFall); after a quota cut, that
// the node's pods use no more than the quota.
func checkEvent(ctx context.Context, t *testing.T, a *live.Active, ev scenario.Event, artt bool) error {
	t.Helper()
	at := a.Started.Add(ev.At.Duration)
	if artt {
		if err := sleepUntil(ctx, at.Add(-time.Second)); err != nil {
			return err
		}
		checkWeightsFall(ctx, t, a, ev.Node, describe(ev), at)
	}
	if ev.Type != "node-quota" {
		return nil
	}
	if err := sleepUntil(ctx, at.Add(time.Second)); err != nil {
		return err
	}
	used, err := a.NodeCPU(ev.Node, 5*time.Second)
	if err != nil {
		return err
	}
	if used > ev.Cores*1.1 {
		t.Errorf("%s's quota cut to %g cores: its pods used %.3f cores over 5 s", ev.Node, ev.Cores, used)
	}
	return nil
}

// checkWeightsFall checks that ARTT's weights to a node slowed at `at`
// fall to at most 2/3 of what they were a second before (the share a
// group past the Degraded bar, a slowdown of 1.5, keeps at most) within
// two scrape intervals and one fast-path pass: the first scrape after the
// slowdown may have begun before it, the second measures it whole, and the
// fast path reads it at its next pass. A quota cut or a neighbour leaves
// the CPU per request as it was; what moves is the pods' CPU pressure.
func checkWeightsFall(ctx context.Context, t *testing.T, a *live.Active, node, what string, at time.Time) {
	t.Helper()
	weightTo := func() (sum uint32) {
		rows, err := a.Rule(ctx, "backend")
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range rows {
			sum += to[live.Locality(node)]
		}
		return sum
	}
	start := weightTo()
	if start == 0 {
		t.Fatalf("%s: ARTT's rows send it nothing before it is %s", node, what)
	}
	if err := sleepUntil(ctx, at); err != nil {
		t.Fatal(err)
	}
	scrape := a.H.Plan.Scenario.Control.SampleInterval.Duration
	deadline := 3 * scrape
	for time.Since(at) < deadline+scrape {
		if w := weightTo(); 3*w <= 2*start {
			took := time.Since(at)
			t.Logf("%s: ARTT's weights to it fell from %d to %d %s later (deadline %s)", what, start, w, took.Round(100*time.Millisecond), deadline)
			if took > deadline {
				t.Errorf("%s: ARTT's weights to it fell %s later, past two scrapes and a fast-path pass (%s)", what, took.Round(100*time.Millisecond), deadline)
			}
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("%s: ARTT's weights to it (%d) had not fallen to 2/3 %s later", what, start, deadline+scrape)
}

// sleepUntil waits until t or the context's end.
func sleepUntil(ctx context.Context, t time.Time) error {
	select {
	case <-time.After(time.Until(t)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

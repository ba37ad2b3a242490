package live_test

import (
	"context"
	"testing"
	"time"

	"github.com/artt-dev/artt/loadtest/live"
)

// The slowdowns a node's CPU per request does not show, on the live loop
// (testdata/slowdowns.yaml): a neighbour of four busy threads in n1's
// cgroup from 35 s to 60 s, then n2's quota cut to a fifth from 65 s to
// 85 s. Under ARTT each node's weights must fall within two scrapes and a
// fast-path pass (checkWeightsFall); the same events are run under gRPC's
// least-request, and the requests each routing lost in the 10 s after each
// event are reported side by side.
func TestLiveSlowedNodes(t *testing.T) {
	needLive(t)
	plan, err := live.NewPlan("testdata/slowdowns.yaml", live.DefaultMaxCores)
	if err != nil {
		t.Fatal(err)
	}
	ctx, h := startHarness(t, plan)
	type event struct {
		name, node string
		from, to   time.Duration
	}
	events := []event{
		{"n1 contended by four busy threads", "n1", 35 * time.Second, 60 * time.Second},
		{"n2's quota cut to a fifth", "n2", 65 * time.Second, 85 * time.Second},
	}
	for i, run := range plan.Runs {
		at := make([]float64, len(events))
		m, err := h.Run(ctx, i, func(ctx context.Context, a *live.Active) error {
			for e, ev := range events {
				if err := sleepUntil(ctx, a.Started.Add(ev.from)); err != nil {
					return err
				}
				at[e] = time.Since(a.Started).Seconds()
				undo := slowNode(ctx, t, a, ev.node, e == 0, run.Routing == "artt")
				if err := sleepUntil(ctx, a.Started.Add(ev.to)); err != nil {
					return err
				}
				undo()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for e, ev := range events {
			sent, lost, p99 := window(m, at[e], at[e]+10)
			t.Logf("%s, %s at %.0f s: of the %d requests sent in the next 10 s, %d lost; P99 of the rest %.1f ms", run.Label(), ev.name, at[e], sent, lost, p99)
		}
	}
}

// slowNode contends a node (a neighbour of four busy threads in its
// cgroup) or cuts its quota to a fifth, and under ARTT checks that its
// weights fall (checkWeightsFall). It returns what undoes the slowdown.
func slowNode(ctx context.Context, t *testing.T, a *live.Active, node string, contend, artt bool) (undo func()) {
	t.Helper()
	cores := 0.0
	for _, n := range a.H.Plan.Scenario.Cluster.Nodes {
		if n.Name == node {
			cores = n.Cores
		}
	}
	undo = func() {}
	slow := func() {
		if contend {
			n, err := a.StartNeighbour(node, 4)
			if err != nil {
				t.Fatal(err)
			}
			undo = func() {
				if err := n.Stop(); err != nil {
					t.Error(err)
				}
			}
			return
		}
		if err := a.SetNodeCores(node, cores/5); err != nil {
			t.Fatal(err)
		}
		undo = func() {
			if err := a.SetNodeCores(node, cores); err != nil {
				t.Error(err)
			}
		}
		used, err := a.NodeCPU(node, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if used > cores/5*1.1 {
			t.Errorf("%s cut to %g cores: its pods used %.3f cores over 5 s", node, cores/5, used)
		}
	}
	what := "cut to a fifth of its cores"
	if contend {
		what = "contended by four busy threads"
	}
	if artt {
		checkWeightsFall(ctx, t, a, node, what, slow)
	} else {
		slow()
	}
	return undo
}

// checkWeightsFall slows a node and checks that ARTT's weights to it fall
// to at most 2/3 of what they were (the share a group past the Degraded
// bar, a slowdown of 1.5, keeps at most) within two scrape intervals and
// one fast-path pass: the first scrape after the slowdown may have begun
// before it, the second measures it whole, and the fast path reads it at
// its next pass. A quota cut or a neighbour leaves the CPU per request as
// it was; what moves is the pods' CPU pressure.
func checkWeightsFall(ctx context.Context, t *testing.T, a *live.Active, node, what string, slow func()) {
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
	at := time.Now()
	slow()
	scrape := a.H.Plan.Scenario.Control.SampleInterval.Duration
	deadline := 3 * scrape
	for time.Since(at) < deadline+scrape {
		if w := weightTo(); 3*w <= 2*start {
			took := time.Since(at)
			t.Logf("%s %s: ARTT's weights to it fell from %d to %d %s later (deadline %s)", node, what, start, w, took.Round(100*time.Millisecond), deadline)
			if took > deadline {
				t.Errorf("%s %s: ARTT's weights to it fell %s later, past two scrapes and a fast-path pass (%s)", node, what, took.Round(100*time.Millisecond), deadline)
			}
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("%s %s: ARTT's weights to it (%d) had not fallen to 2/3 %s later", node, what, start, deadline+scrape)
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

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
// to a fifth from 65 s to 85 s. Under ARTT the share of the backend's
// requests sent to each node must fall within two scrapes and a fast-path
// pass (checkShareFalls); the same events are run under gRPC's
// least-request, and the requests each routing lost in the 10 s after each
// event are reported side by side.
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
// the share of the backend's requests sent to the node falls
// (checkShareFalls); after a quota cut, that
// the node's pods use no more than the quota.
func checkEvent(ctx context.Context, t *testing.T, a *live.Active, ev scenario.Event, artt bool) error {
	t.Helper()
	at := a.Started.Add(ev.At.Duration)
	if artt {
		if err := sleepUntil(ctx, at.Add(-time.Second)); err != nil {
			return err
		}
		checkShareFalls(ctx, t, a, ev.Node, describe(ev), at)
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

// checkShareFalls checks that the share of the backend's requests ARTT's
// rules send to a node slowed at `at` falls to at most 2/3 of what it was
// a second before (the share a group past the Degraded bar, a slowdown of
// 1.5, keeps at most) within two scrape intervals and one fast-path pass:
// the first scrape after the slowdown may have begun before it, the second
// measures it whole, and the fast path reads it at its next pass. A quota
// cut or a neighbour leaves the CPU per request as it was; what moves is
// the pods' CPU pressure.
func checkShareFalls(ctx context.Context, t *testing.T, a *live.Active, node, what string, at time.Time) {
	t.Helper()
	shareTo := func() float64 {
		share, err := backendShare(ctx, a, node)
		if err != nil {
			t.Fatal(err)
		}
		return share
	}
	start := shareTo()
	if start == 0 {
		t.Fatalf("%s: ARTT's rules send it none of the backend's requests before it is %s", node, what)
	}
	if err := sleepUntil(ctx, at); err != nil {
		t.Fatal(err)
	}
	scrape := a.H.Plan.Scenario.Control.SampleInterval.Duration
	deadline := 3 * scrape
	for time.Since(at) < deadline+scrape {
		if share := shareTo(); 3*share <= 2*start {
			took := time.Since(at)
			t.Logf("%s: the backend's share sent to it fell from %.3f to %.3f %s later (deadline %s)", what, start, share, took.Round(100*time.Millisecond), deadline)
			if took > deadline {
				t.Errorf("%s: the backend's share sent to it fell %s later, past two scrapes and a fast-path pass (%s)", what, took.Round(100*time.Millisecond), deadline)
			}
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("%s: the backend's share sent to it (%.3f) had not fallen to 2/3 %s later", what, start, deadline+scrape)
}

// backendShare is the fraction of the backend's requests the rules in
// force send to node. The frontend's rows (one per ingress node; the
// scenario's single ingress makes them one) say how much of the traffic
// each frontend node takes, and each node's backend row splits what its
// frontend sends; a backend row alone overstates a node whose frontend the
// frontend's rows have already drained. Without frontend rows gRPC's round
// robin gives each frontend node its share of the pods.
func backendShare(ctx context.Context, a *live.Active, node string) (float64, error) {
	frontend, err := a.Rule(ctx, "frontend")
	if err != nil {
		return 0, err
	}
	backend, err := a.Rule(ctx, "backend")
	if err != nil {
		return 0, err
	}
	entering := frontendShares(a, frontend.ByNode())
	share := 0.0
	for from, row := range backend.ByNode() {
		share += entering[from] * fraction(row, node)
	}
	return share, nil
}

// frontendShares is the fraction of the frontend's requests each node
// takes: the mean of the frontend's rows, or, with none, each node's share
// of the frontend's pods.
func frontendShares(a *live.Active, rows map[string]map[string]uint32) map[string]float64 {
	shares := map[string]float64{}
	if len(rows) == 0 {
		for _, c := range a.H.Plan.Scenario.Application.Components {
			if c.Name == "frontend" && len(c.Placement) > 0 {
				for i := 0; i < c.Replicas; i++ {
					shares[c.Placement[i%len(c.Placement)]] += 1 / float64(c.Replicas)
				}
			}
		}
		return shares
	}
	for _, row := range rows {
		for to := range row {
			shares[to] += fraction(row, to) / float64(len(rows))
		}
	}
	return shares
}

// fraction is the part of a row's weight that goes to node.
func fraction(row map[string]uint32, node string) float64 {
	var sum uint32
	for _, w := range row {
		sum += w
	}
	if sum == 0 {
		return 0
	}
	return float64(row[node]) / float64(sum)
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

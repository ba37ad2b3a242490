package live_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/artt-dev/artt/internal/promtest"
	"github.com/artt-dev/artt/loadtest/live"
	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/traffic/controller"

	"github.com/artt-dev/artt/internal/stats"
)

// skipWhy says why the live tests cannot run here ("" when they can).
var skipWhy string

// TestMain plays the parts the harness starts as processes of this binary
// (RoleEnv), and otherwise runs the tests again inside a network namespace
// of their own, where the harness may add pod addresses.
func TestMain(m *testing.M) {
	if role := os.Getenv(live.RoleEnv); role != "" {
		os.Exit(live.RunRole(role, os.Args[1:]))
	}
	switch {
	case os.Geteuid() != 0:
		skipWhy = "not root: the live loop makes a network namespace and cgroups"
	case live.CheckCgroups() != nil:
		skipWhy = live.CheckCgroups().Error()
	case live.AssetsFromEnv().Check() != nil:
		skipWhy = live.AssetsFromEnv().Check().Error()
	}
	if skipWhy != "" {
		if promtest.Required() {
			fmt.Fprintln(os.Stderr, "live test components required but missing:", skipWhy)
			os.Exit(1)
		}
		os.Exit(m.Run())
	}
	if !live.InNamespace() {
		code, err := live.ReexecInNamespace()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(code)
	}
	if err := live.SetUpLoopback(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func needLive(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip("live loop components missing: " + skipWhy)
	}
}

// The live loop's short check, on testdata/check.yaml under ARTT's
// routing with the ROUND_ROBIN artt-traffic writes for gRPC: the rule in
// force is artt-traffic's own; each caller node's share of the backend's
// requests follows ARTT's row within 5 points; no request is lost across
// an istiod restart; a deleted pod's share goes to zero (and how long it
// takes is logged). TestLiveSlowedNodes slows nodes.
func TestLiveCheck(t *testing.T) {
	needLive(t)
	plan, err := live.NewPlan("testdata/check.yaml", live.DefaultMaxCores)
	if err != nil {
		t.Fatal(err)
	}
	ctx, h := startHarness(t, plan)
	var faults []fault
	var first live.Rows
	m, err := h.Run(ctx, 0, func(ctx context.Context, a *live.Active) error {
		rows, err := firstRows(ctx, a, 90*time.Second)
		if err != nil {
			return err
		}
		first = rows
		at := func(name string) { faults = append(faults, fault{name, time.Since(a.Started).Seconds()}) }
		t.Run("shares follow the rows", func(t *testing.T) { at("none (the shares' window)"); checkShares(ctx, t, a) })
		t.Run("no request lost across an istiod restart", func(t *testing.T) { at("istiod restarted"); checkIstiodRestart(ctx, t, a) })
		t.Run("no request lost across a leader change", func(t *testing.T) { at("artt-traffic's leader stopped"); checkLeaderChange(ctx, t, a) })
		t.Run("a deleted pod's share goes to zero", func(t *testing.T) { at("the busiest backend deleted"); checkDeletedPod(ctx, t, a) })
		t.Run("a killed pod costs its requests in flight", func(t *testing.T) { at("the busiest frontend killed"); checkKilledPod(ctx, t, a) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkTablesRecorded(t, m, first)
	r := h.Result(m)
	t.Logf("run: %d requests, P99 %.1f ms, %d failed; send lag %+v", r.Requests, r.P99Ms, r.Timeouts+r.Errors, live.SendLag(m))
	for _, f := range faults {
		sent, lost, p99 := window(m, f.at, f.at+10)
		t.Logf("%s at %.0f s: of the %d requests sent in the next 10 s, %d lost; P99 of the rest %.1f ms", f.name, f.at, sent, lost, p99)
	}
	// The pods' cgroups count the scenario's CPU per request, and hold the
	// workers alone: the servers beside them spend more per request here
	// than the check's work, so with them inside, the work would be under
	// half of what the cgroups count.
	for _, c := range h.CPUPerRequest(m) {
		t.Logf("%s: CPU per request %.2f ms by the scenario, %.2f ms counted by the pods' cgroups, %.2f ms burned as work, %.2f ms of the servers beside",
			c.Component, c.ScenarioMs, c.LiveMs, c.WorkMs, c.ServerMs)
		if math.Abs(c.LiveMs/c.ScenarioMs-1) > 0.1 {
			t.Errorf("%s: the pods' cgroups counted %.2f ms per request, the scenario's %.2f", c.Component, c.LiveMs, c.ScenarioMs)
		}
		if c.WorkMs < 0.5*c.LiveMs || c.WorkMs > c.LiveMs {
			t.Errorf("%s: %.2f ms of work burned per request of the %.2f ms the pods' cgroups counted", c.Component, c.WorkMs, c.LiveMs)
		}
		if c.ServerMs <= 0 {
			t.Errorf("%s: the servers beside the work counted no CPU", c.Component)
		}
	}
}

// checkTablesRecorded checks that the tables the run recorded for the lab
// to replay hold the backend's rows read from its rule mid-run, by node.
func checkTablesRecorded(t *testing.T, m *live.Measured, read live.Rows) {
	t.Helper()
	want := read.ByNode()
	found, last := false, math.Inf(-1)
	for _, ch := range m.Tables {
		found = found || (ch.Component == "backend" && maps.EqualFunc(ch.Rows, want, maps.Equal))
		if ch.AtS < last {
			t.Errorf("recorded tables out of order: %.1f s after %.1f s", ch.AtS, last)
		}
		last = ch.AtS
	}
	t.Logf("%d routing tables recorded", len(m.Tables))
	if !found {
		t.Errorf("no recorded backend table holds the rows read mid-run, %v (%d recorded)", want, len(m.Tables))
	}
}

// fault is an event of the check, at seconds from the load's start.
type fault struct {
	name string
	at   float64
}

// window counts the requests scheduled in [from, to) seconds, those that
// failed, and the P99 of the others.
func window(m *live.Measured, from, to float64) (sent, lost int, p99 float64) {
	var lat []float64
	for _, r := range m.Records {
		if r.At < from || r.At >= to {
			continue
		}
		sent++
		if r.Code != codes.OK {
			lost++
		} else {
			lat = append(lat, r.LatencyMs)
		}
	}
	slices.Sort(lat)
	return sent, lost, stats.Quantile(lat, 0.99)
}

// startHarness starts the live loop for plan, within 8 minutes; the test's
// end closes it and keeps its logs if the test failed.
func startHarness(t *testing.T, plan *live.Plan) (context.Context, *live.Harness) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)
	h, err := live.Start(ctx, plan, live.Options{Dir: dir, Assets: live.AssetsFromEnv(), Progress: live.NewProgress(os.Stderr, 15*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			keepLogs(t, dir)
		}
	})
	return ctx, h
}

// keepLogs copies the harness's logs out of the test's temporary folder.
func keepLogs(t *testing.T, dir string) {
	kept, err := os.MkdirTemp("", "artt-live-check-")
	if err == nil {
		err = os.CopyFS(kept, os.DirFS(dir))
	}
	t.Logf("logs kept in %s (%v)", kept, err)
}

// firstRows waits until artt-traffic has written a row for every node,
// then one cycle more, so the callers have had time to follow it.
func firstRows(ctx context.Context, a *live.Active, timeout time.Duration) (live.Rows, error) {
	deadline := time.Now().Add(timeout)
	var last live.Rows
	for time.Now().Before(deadline) {
		rows, err := a.Rule(ctx, "backend")
		if err != nil {
			return nil, err
		}
		if len(rows) == len(a.H.Plan.Scenario.Cluster.Nodes) {
			time.Sleep(a.H.Plan.Scenario.Control.TrafficCycle.Duration)
			return a.Rule(ctx, "backend")
		}
		last = rows
		time.Sleep(time.Second)
	}
	return nil, fmt.Errorf("no row for every node within %s (last %v)", timeout, last)
}

// sharesOver measures, over a window, each caller node's split of the
// backend's requests among the nodes that received them, and the rows'
// weights over the same window, averaged over one reading a second
// (artt-traffic moves them a little at each cycle).
func sharesOver(ctx context.Context, t *testing.T, a *live.Active, window time.Duration) (measured, rows map[string]map[string]float64) {
	t.Helper()
	before, err := a.Received(ctx, "backend")
	if err != nil {
		t.Fatal(err)
	}
	rows = map[string]map[string]float64{}
	readings := 0
	for end := time.Now().Add(window); time.Now().Before(end); time.Sleep(time.Second) {
		r, err := a.Rule(ctx, "backend")
		if err != nil {
			t.Fatal(err)
		}
		for from, to := range r {
			if rows[from] == nil {
				rows[from] = map[string]float64{}
			}
			for l, w := range to {
				rows[from][l] += float64(w) / 100
			}
		}
		readings++
	}
	for _, to := range rows {
		for l := range to {
			to[l] /= float64(readings)
		}
	}
	after, err := a.Received(ctx, "backend")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]map[string]float64{} // caller node → callee node → requests
	for pod, bySource := range after {
		for from, n := range bySource {
			if counts[from] == nil {
				counts[from] = map[string]float64{}
			}
			counts[from][a.PodNode(pod)] += n - before[pod][from]
		}
	}
	measured = map[string]map[string]float64{}
	for from, to := range counts {
		total := 0.0
		for _, n := range to {
			total += n
		}
		measured[from] = map[string]float64{}
		for node, n := range to {
			measured[from][node] = n / total
		}
	}
	return measured, rows
}

func checkShares(ctx context.Context, t *testing.T, a *live.Active) {
	checkOwnRoundRobin(ctx, t, a)
	shares, rows := sharesOver(ctx, t, a, 30*time.Second)
	checkOwnRoundRobin(ctx, t, a)
	missing := 0
	for _, from := range a.H.Plan.Scenario.Cluster.Nodes {
		row := rows[live.Locality(from.Name)]
		for _, to := range a.H.Plan.Scenario.Cluster.Nodes {
			want := row[live.Locality(to.Name)]
			got := shares[from.Name][to.Name]
			if math.Abs(got-want) > 0.05 {
				t.Errorf("callers on %s sent %.1f%% of the backend's requests to %s; ARTT's rows gave it %.1f%% on average", from.Name, 100*got, to.Name, 100*want)
			}
			if want == 0 {
				missing++
			}
		}
		t.Logf("callers on %s: rows %v on average, measured %v", from.Name, row, shares[from.Name])
	}
	if missing == 0 {
		t.Error("every row names every node: a node the rows leave out was not exercised")
	}
}

// checkOwnRoundRobin checks that the backend's rule in force is the one
// artt-traffic wrote where the user wrote none, naming ROUND_ROBIN: gRPC
// carries the rows only under it.
func checkOwnRoundRobin(ctx context.Context, t *testing.T, a *live.Active) {
	t.Helper()
	rule, simple, err := a.Balancer(ctx, "backend")
	if err != nil {
		t.Fatal(err)
	}
	if want := controller.RuleName(backend.ObjectName("backend")); rule != want || simple != "ROUND_ROBIN" {
		t.Errorf("the backend's rule in force is %q with balancer %q, want artt-traffic's own %q with ROUND_ROBIN", rule, simple, want)
	}
}

func checkIstiodRestart(ctx context.Context, t *testing.T, a *live.Active) {
	before := a.Counts()
	start := time.Now()
	if err := a.RestartIstiod(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := time.Since(start)
	time.Sleep(10 * time.Second)
	after := a.Counts()
	t.Logf("istiod down and up again in %s; %d requests sent around it", restarted.Round(time.Millisecond), after.Sent-before.Sent)
	if lost := after.Failed - before.Failed; lost > 0 {
		t.Errorf("%d requests failed across istiod's restart", lost)
	}
}

func checkLeaderChange(ctx context.Context, t *testing.T, a *live.Active) {
	before := a.Counts()
	gap, err := a.ChangeLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	after := a.Counts()
	t.Logf("artt-traffic's leader stopped without giving up its lease: a new one led %s later; %d requests sent meanwhile", gap.Round(100*time.Millisecond), after.Sent-before.Sent)
	if lost := after.Failed - before.Failed; lost > 0 {
		t.Errorf("%d requests failed across the leader change", lost)
	}
}

// A pod killed outright keeps its object Ready (no kubelet probes it
// here): what is lost is what gRPC had in flight on it, until its clients
// see the connection go. The count is logged; more than the pod had in
// flight at the rate it served would mean its clients kept picking it.
func checkKilledPod(ctx context.Context, t *testing.T, a *live.Active) {
	pod := busiest(ctx, t, a, "frontend")
	before := a.Counts()
	if err := a.KillPod(pod); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Second)
	after := a.Counts()
	lost := after.Failed - before.Failed
	t.Logf("%s killed: %d of %d requests sent in the next 10 s failed", pod, lost, after.Sent-before.Sent)
	if rate := float64(after.Sent-before.Sent) / 10; float64(lost) > rate {
		t.Errorf("%d requests lost after %s was killed, more than a second's worth (%.0f): its clients kept picking it", lost, pod, rate)
	}
}

func checkDeletedPod(ctx context.Context, t *testing.T, a *live.Active) {
	const grace = 15 * time.Second
	pod := busiest(ctx, t, a, "backend")
	received := func() float64 {
		got, err := a.ReceivedByPod(ctx, "backend")
		if err != nil {
			t.Fatal(err)
		}
		return got[pod]
	}
	first := received()
	time.Sleep(time.Second)
	last, lastAt := received(), time.Now()
	if last == first {
		t.Fatalf("%s received nothing in the second before its deletion: the deletion would not be exercised", pod)
	}
	deleted := time.Now()
	if err := a.DeletePod(ctx, pod, grace); err != nil {
		t.Fatal(err)
	}
	for time.Since(deleted) < grace-2*time.Second {
		time.Sleep(200 * time.Millisecond)
		if n := received(); n != last {
			last, lastAt = n, time.Now()
		}
	}
	took := lastAt.Sub(deleted)
	t.Logf("%s deleted: its last request arrived %s later", pod, took.Round(10*time.Millisecond))
	if took > grace-4*time.Second {
		t.Errorf("%s still received requests %s after its deletion", pod, took.Round(10*time.Millisecond))
	}
	time.Sleep(3 * time.Second) // its process stops at the end of the grace
}

// busiest is the pod of a component that received the most requests over
// two seconds.
func busiest(ctx context.Context, t *testing.T, a *live.Active, component string) string {
	t.Helper()
	total := func() map[string]float64 {
		got, err := a.ReceivedByPod(ctx, component)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	before := total()
	time.Sleep(2 * time.Second)
	best, most := "", -1.0
	for pod, n := range total() {
		if d := n - before[pod]; d > most {
			best, most = pod, d
		}
	}
	return best
}

package allocate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/health"
)

// closedLoop is A (one pod per node) calling B (one pod per node) on
// n0…n2 over 10 ms links, B costing costs[node] CPU seconds per request,
// each B pod serving its group's share of 150 requests per second.
func closedLoop(at time.Time, shares map[string]float64, costs map[string]float64) traffic.Snapshot {
	s := callerCallee(3, 3, 1, 150, 5, 10)
	s.At, s.MeasuredAt = at, at
	for i := range s.Replicas {
		r := &s.Replicas[i]
		if r.Component != "B" {
			continue
		}
		share := 1.0 / 3
		if w, ok := shares[r.Node]; ok {
			share = w
		}
		r.Requests = 150 * share
		r.CPU = r.Requests * costs[r.Node]
	}
	return s
}

func groupShares(t *testing.T, a traffic.Allocation) map[string]float64 {
	t.Helper()
	r, ok := a.Route("B")
	if !ok {
		t.Fatal("no route for B")
	}
	out := map[string]float64{}
	for _, g := range r.Groups {
		out[g.Node] = g.Share
	}
	return out
}

// settle runs a leader over cycles of closedLoop from at, n1's cost
// tripling at degradeAt (never if negative), and returns it with the
// shares it last handed out and the next cycle's time.
func settle(t *testing.T, opts Options, costs map[string]float64, cycles, degradeAt int, at time.Time) (*ARTT, map[string]float64, time.Time) {
	t.Helper()
	leader := NewARTT(opts)
	shares := map[string]float64{}
	for i := range cycles {
		if i == degradeAt {
			costs["n1"] *= 3
		}
		a, err := leader.Allocate(closedLoop(at, shares, costs))
		if err != nil {
			t.Fatal(err)
		}
		shares = groupShares(t, a)
		at = at.Add(30 * time.Second)
	}
	return leader, shares, at
}

func resumeFrom(t *testing.T, opts Options, leader *ARTT, at time.Time) *ARTT {
	t.Helper()
	b, ok := leader.State("B")
	if !ok {
		t.Fatal("no state for B")
	}
	resumed := NewARTT(opts)
	if refused := resumed.Resume(at, map[string][]byte{"B": b}); len(refused) > 0 {
		t.Fatal(refused)
	}
	return resumed
}

// At settled shares (n2 needs four times the CPU per request, so it has a
// ninth of the traffic), a new ARTT resumed from the leader's state writes
// every share within the bound of the last ones (×1.5 either way); one
// that starts from nothing starts from fair shares and gives n2 twice its
// share at once.
func TestResumeKeepsSettledShares(t *testing.T) {
	opts := DefaultOptions()
	opts.LeaveToEnvoy = false
	costs := map[string]float64{"n0": 0.004, "n1": 0.004, "n2": 0.016}
	leader, shares, at := settle(t, opts, costs, 10, -1, time.Unix(1000, 0))
	next := closedLoop(at, shares, costs)
	a, err := resumeFrom(t, opts, leader, at).Allocate(next)
	if err != nil {
		t.Fatal(err)
	}
	first := groupShares(t, a)
	for node, was := range shares {
		if ratio := first[node] / was; ratio > 1.5+1e-9 || ratio < 1/1.5-1e-9 {
			t.Errorf("%s: %.3f → %.3f after the restart, a step of ×%.2f past the bound 1.5", node, was, first[node], ratio)
		}
	}
	cold, err := NewARTT(opts).Allocate(next)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := groupShares(t, cold)["n2"] / shares["n2"]; ratio <= 1.5 {
		t.Errorf("a cold start moves n2 only ×%.2f: the test shows nothing", ratio)
	}
}

// n1 degrades (three times the CPU per request) and is cut. Resumed, it
// stays Degraded, and its share is within the bound of what the leader
// itself writes next, as its cost baseline learns; a cold start calls n1
// Healthy and gives it several times that.
func TestResumeKeepsACutGroupCut(t *testing.T) {
	opts := DefaultOptions()
	opts.LeaveToEnvoy = false
	costs := map[string]float64{"n0": 0.004, "n1": 0.004, "n2": 0.008}
	leader, shares, at := settle(t, opts, costs, 11, 8, time.Unix(1000, 0))
	if r, _ := leader.lastRoute("B"); r["n1"].Health != string(health.Degraded) {
		t.Fatalf("n1 after tripling its cost: %s, want Degraded", r["n1"].Health)
	}
	next := closedLoop(at, shares, costs)
	resumed := resumeFrom(t, opts, leader, at)
	a, err := resumed.Allocate(next)
	if err != nil {
		t.Fatal(err)
	}
	own, err := leader.Allocate(next)
	if err != nil {
		t.Fatal(err)
	}
	got, want := groupShares(t, a)["n1"], groupShares(t, own)["n1"]
	if ratio := got / want; ratio > 1.5 || ratio < 1/1.5 {
		t.Errorf("n1's share after the restart %.3f, the leader's own next %.3f: ×%.2f apart", got, want, ratio)
	}
	if r, _ := resumed.lastRoute("B"); r["n1"].Health != string(health.Degraded) {
		t.Errorf("n1 after the restart: %s, want still Degraded", r["n1"].Health)
	}
	cold, err := NewARTT(opts).Allocate(next)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := groupShares(t, cold)["n1"] / want; ratio <= 1.5 {
		t.Errorf("a cold start gives n1 only ×%.2f of the leader's share: the test shows nothing", ratio)
	}
}

// Resume refuses a state it cannot read, naming the component and the
// field, and resumes the others.
func TestResumeRefusesBadStatesAlone(t *testing.T) {
	good := `{"v":1,"groups":[{"node":"n0","share":0.5},{"node":"n1","share":0.5}]}`
	states := map[string][]byte{
		"shop/good":    []byte(good),
		"shop/version": []byte(`{"v":9,"groups":[]}`),
		"shop/share":   []byte(`{"v":1,"groups":[{"node":"n0","share":1.5}]}`),
		"shop/health":  []byte(`{"v":1,"groups":[{"node":"n0","share":0.5,"health":{"state":"Sick","score":1,"slow":1,"baselineMs":null,"costBaseline":null}}]}`),
		"shop/json":    []byte(`{"v":1,"groups":`),
	}
	a := NewARTT(DefaultOptions())
	refused := a.Resume(time.Unix(0, 0), states)
	for component, want := range map[string]string{"shop/version": "state version = 9", "shop/share": "groups[0].share = 1.5", "shop/health": `groups[0].health.state = "Sick"`, "shop/json": "state: "} {
		if err := refused[component]; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s refused with %v; want an error saying %q", component, err, want)
		}
	}
	if err, ok := refused["shop/good"]; ok {
		t.Errorf("shop/good refused: %v", err)
	}
	if got := a.Tracked().Components; got != 1 {
		t.Errorf("%d components resumed, want only shop/good", got)
	}
	if b, ok := a.State("shop/good"); !ok || !strings.Contains(string(b), `"share":0.5`) {
		t.Errorf("shop/good's state after resuming: %s", b)
	}
}

// Components that leave the cluster leave ARTT's state after ForgetAfter;
// one that returns within it keeps its state.
func TestForgetsComponentsGoneForTheGracePeriod(t *testing.T) {
	opts := DefaultOptions()
	opts.ForgetAfter = 5 * time.Minute
	a := NewARTT(opts)
	at := time.Unix(0, 0)
	withC := func(at time.Time, c bool) traffic.Snapshot {
		s := callerCallee(3, 3, 1, 150, 5, 10)
		s.At, s.MeasuredAt = at, at
		if c {
			s.Components = append(s.Components, traffic.Component{Name: "C"})
			s.Calls = append(s.Calls, graph.Call{From: "A", To: "C", Rate: 10})
			for i := range 3 {
				s.Replicas = append(s.Replicas, traffic.Replica{Name: fmt.Sprintf("c-%d", i), Component: "C", Node: fmt.Sprintf("n%d", i), Ready: true, CPU: 0.01, CPULimit: 1, Requests: 3, LatencyP95: 5, ErrorRate: 0})
			}
		}
		return s
	}
	step := func(c bool) traffic.Tracked {
		if _, err := a.Allocate(withC(at, c)); err != nil {
			t.Fatal(err)
		}
		at = at.Add(30 * time.Second)
		return a.Tracked()
	}
	with := step(true)
	if with.Components != 2 || with.Groups != 6 || with.Replicas != 6 {
		t.Fatalf("tracked %+v with B and C on three nodes, want 2 components, 6 groups, 6 replicas", with)
	}
	for range 4 { // C gone for two minutes, then back
		step(false)
	}
	if back := step(true); back.Components != 2 {
		t.Errorf("C back within the grace period: tracked %+v", back)
	}
	for range 12 { // C gone for six minutes
		step(false)
	}
	if gone := step(false); gone.Components != 1 || gone.Groups != 3 || gone.Replicas != 3 {
		t.Errorf("C gone for six minutes: tracked %+v, want only B's 1 component, 3 groups, 3 replicas", gone)
	}
}

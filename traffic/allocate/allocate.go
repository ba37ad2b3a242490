package allocate

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/atpm"
	"github.com/artt-dev/artt/traffic/forecast"
	"github.com/artt-dev/artt/traffic/health"
	"github.com/artt-dev/artt/traffic/ntam"
)

// Options configure the policies; zero fields take the defaults.
type Options struct {
	NTAM     ntam.Config
	ATPM     atpm.Config
	Forecast forecast.Config
	Health   health.Config
	// Parallelism bounds the goroutines computing components (default GOMAXPROCS).
	Parallelism int
	// LeaveToEnvoy lets ARTT leave a component to Envoy's own per-request
	// balancing (no locality weights) when its table would save less
	// network time than the queueing a static split adds (handover.go).
	// On by default; off, ARTT always writes its table.
	LeaveToEnvoy bool
	// ForgetAfter is how long ARTT keeps a component's state, and a group's
	// health, after it was last in a snapshot (default 10 minutes, as
	// artt-scaler's --idle-ttl): a Deployment deleted and recreated within
	// it resumes where it was, one gone for longer is forgotten.
	ForgetAfter time.Duration
}

// DefaultOptions returns every package's defaults.
func DefaultOptions() Options {
	return Options{
		NTAM: ntam.DefaultConfig(), ATPM: atpm.DefaultConfig(),
		Forecast: forecast.DefaultConfig(), Health: health.DefaultConfig(),
		Parallelism: runtime.GOMAXPROCS(0), LeaveToEnvoy: true, ForgetAfter: 10 * time.Minute,
	}
}

// policies is the one list of the policies New builds, in the order
// Names lists them; artt-traffic's --policy and artt-lab's table routings
// are derived from it.
var policies = []struct {
	name string
	make func(Options) traffic.Policy
}{
	{"artt", func(o Options) traffic.Policy { return NewARTT(o) }},
	{"heart", func(o Options) traffic.Policy { return NewHEART(o) }},
	{"equal", func(o Options) traffic.Policy { return stateless{"equal", o, equalRoute} }},
	{"localization", func(o Options) traffic.Policy { return stateless{"localization", o, localizationRoute} }},
	{"opttraffic", func(o Options) traffic.Policy { return stateless{"opttraffic", o, optTrafficRoute} }},
	{"lata", func(o Options) traffic.Policy { return stateless{"lata", o, lataRoute} }},
}

// Names lists the policies New knows.
var Names = func() []string {
	out := make([]string, len(policies))
	for i, p := range policies {
		out[i] = p.name
	}
	return out
}()

// New returns the named policy.
func New(name string, opts Options) (traffic.Policy, error) {
	if opts.Parallelism < 1 {
		opts.Parallelism = 1
	}
	for _, p := range policies {
		if p.name == name {
			return p.make(opts), nil
		}
	}
	return nil, &traffic.FieldError{Field: "policy", Value: name, Reason: fmt.Sprintf("unknown; choose one of %v", Names)}
}

// routeFunc computes the route of one downstream component. It returns
// ok = false when the component has nothing to route (no serving upstream
// or downstream replica).
type routeFunc func(x *traffic.Index, component string) (traffic.Route, bool, error)

// eachDownstream runs route for every downstream component on at most
// parallelism goroutines and returns the routes sorted by component, and
// the components whose route failed: one component's failure is its own.
func eachDownstream(x *traffic.Index, parallelism int, route routeFunc) ([]traffic.Route, []traffic.ComponentFailure) {
	downs := x.Downstreams()
	routes := make([]traffic.Route, len(downs))
	oks := make([]bool, len(downs))
	errs := make([]error, len(downs))
	inParallel(len(downs), parallelism, func(i int) {
		routes[i], oks[i], errs[i] = route(x, downs[i])
	})
	var out []traffic.Route
	var failed []traffic.ComponentFailure
	for i := range downs {
		switch {
		case errs[i] != nil:
			failed = append(failed, traffic.ComponentFailure{Component: downs[i], Err: errs[i]})
		case oks[i]:
			out = append(out, routes[i])
		}
	}
	return out, failed
}

// inParallel calls work(0) … work(n−1) on at most parallelism goroutines
// and returns when every call has. Each call must write only its own
// results.
func inParallel(n, parallelism int, work func(i int)) {
	var g errgroup.Group
	g.SetLimit(max(parallelism, 1))
	for i := range n {
		g.Go(func() error { work(i); return nil })
	}
	_ = g.Wait() // work returns no error
}

// stateless wraps a policy that needs no memory between snapshots.
type stateless struct {
	name  string
	opts  Options
	route routeFunc
}

func (p stateless) Name() string { return p.name }

func (p stateless) Allocate(s traffic.Snapshot) (traffic.Allocation, error) {
	x, err := traffic.NewIndex(s)
	if err != nil {
		return traffic.Allocation{}, err
	}
	routes, failed := eachDownstream(x, p.opts.Parallelism, p.route)
	return traffic.Allocation{Policy: p.name, Routes: routes, Failed: failed}, nil
}

// replicaNames lists a group's replica names.
func replicaNames(g traffic.Group) []string {
	out := make([]string, len(g.Replicas))
	for i, r := range g.Replicas {
		out[i] = r.Name
	}
	return out
}

// replicaCountShares is each group's share by replica count.
func replicaCountShares(groups []traffic.Group) []float64 {
	n := 0
	for _, g := range groups {
		n += len(g.Replicas)
	}
	out := make([]float64, len(groups))
	for i, g := range groups {
		out[i] = float64(len(g.Replicas)) / float64(n)
	}
	return out
}

// finish fills the route's group shares from what its sources send, and its
// cost, once Sources are set.
func finish(x *traffic.Index, r *traffic.Route, groups []traffic.Group) {
	received := make(map[string]float64)
	r.Cost = 0
	for _, s := range r.Sources {
		for _, t := range s.To {
			received[t.Node] += s.Supply * t.Value
			d, ok := x.Delay(s.Node, t.Node)
			if ok {
				r.Cost += s.Supply * t.Value * d
			}
		}
	}
	if r.Groups == nil {
		for _, g := range groups {
			r.Groups = append(r.Groups, traffic.GroupShare{Node: g.Node, Replicas: replicaNames(g), Share: received[g.Node]})
		}
	}
	slices.SortFunc(r.Groups, func(a, b traffic.GroupShare) int {
		switch {
		case a.Node < b.Node:
			return -1
		case a.Node > b.Node:
			return 1
		}
		return 0
	})
}

// problem gathers what every policy needs for one downstream component.
func problem(x *traffic.Index, component string) (groups []traffic.Group, supplies []traffic.Amount, ok bool) {
	groups = x.Groups(component)
	supplies = x.Supplies(component)
	return groups, supplies, len(groups) > 0 && len(supplies) > 0
}

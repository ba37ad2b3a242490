package importer

import (
	"math"
	"slices"
	"strings"

	"github.com/artt-dev/artt/internal/disjoint"
)

// costSample is what one component's pods on one node cost per request
// over the imported period.
type costSample struct {
	component, node string
	// cost is CPU seconds per request; requests the rate they served
	// (requests per second), which weighs the sample.
	cost, requests float64
}

// speedFit separates node speed from component cost. The lab's model is
// cost = cpuPerRequest(component) ÷ speed(node), so in logarithms
// log cost = b_c − s_n, a two-way layout fitted by weighted least squares
// (alternating weighted means, which converge to it). Speeds are relative:
// the fastest node of each group is 1, and only nodes linked through a
// component running on both are comparable.
type speedFit struct {
	speed map[string]float64
	// cpuPerRequest is each component's CPU seconds per request at speed 1.
	cpuPerRequest map[string]float64
	// spread is each component's coefficient of variation, over the nodes
	// it runs on, of its cost per request after the node's speed is taken
	// out, weighted by requests: how far one speed per node explains what
	// was measured.
	spread map[string]float64
	// groups are the sets of nodes whose speeds are comparable, sorted;
	// more than one means some speeds are relative within their group only.
	groups [][]string
}

// fitIterations bounds the alternating means; each halves the error or
// better on these small layouts, and the loop stops when nothing moves.
const fitIterations = 500

func fitSpeeds(samples []costSample) speedFit {
	var usable []costSample
	for _, s := range samples {
		if s.cost > 0 && s.requests > 0 && !math.IsInf(s.cost, 0) {
			usable = append(usable, s)
		}
	}
	b, sp := alternateLogFit(usable)
	f := speedFit{speed: map[string]float64{}, cpuPerRequest: map[string]float64{}, spread: map[string]float64{},
		groups: linkedNodes(usable)}
	// Fastest node of each group at speed 1; the group's components shift
	// by the same amount, so costs are unchanged.
	for _, g := range f.groups {
		top := math.Inf(-1)
		for _, n := range g {
			top = math.Max(top, sp[n])
		}
		for _, n := range g {
			sp[n] -= top
		}
	}
	for c := range b {
		b[c] = logCPUPerRequest(usable, c, sp) // from the normalised speeds
	}
	for n, v := range sp {
		f.speed[n] = math.Exp(v)
	}
	for c, v := range b {
		f.cpuPerRequest[c] = math.Exp(v)
		f.spread[c] = speedlessSpread(usable, c, f.speed)
	}
	return f
}

// alternateLogFit fits log cost = b_c − s_n by alternating weighted means
// until no estimate moves: b, log CPU per request by component, and s, log
// speed by node, up to one constant per group of linked nodes.
func alternateLogFit(usable []costSample) (b, sp map[string]float64) {
	b, sp = map[string]float64{}, map[string]float64{}
	for _, s := range usable {
		b[s.component], sp[s.node] = 0, 0
	}
	for range fitIterations {
		moved := 0.0
		// b_c = weighted mean over its samples of (log cost + s_n).
		sums, weights := map[string]float64{}, map[string]float64{}
		for _, s := range usable {
			sums[s.component] += s.requests * (math.Log(s.cost) + sp[s.node])
			weights[s.component] += s.requests
		}
		for c := range b {
			v := sums[c] / weights[c]
			moved = math.Max(moved, math.Abs(v-b[c]))
			b[c] = v
		}
		// s_n = weighted mean over its samples of (b_c − log cost).
		clear(sums)
		clear(weights)
		for _, s := range usable {
			sums[s.node] += s.requests * (b[s.component] - math.Log(s.cost))
			weights[s.node] += s.requests
		}
		for n := range sp {
			v := sums[n] / weights[n]
			moved = math.Max(moved, math.Abs(v-sp[n]))
			sp[n] = v
		}
		if moved < 1e-13 {
			break
		}
	}
	return b, sp
}

// logCPUPerRequest is component c's b given the log speeds: the weighted
// mean over its samples of log cost + s_n.
func logCPUPerRequest(usable []costSample, c string, sp map[string]float64) float64 {
	var sum, w float64
	for _, s := range usable {
		if s.component == c {
			sum += s.requests * (math.Log(s.cost) + sp[s.node])
			w += s.requests
		}
	}
	return sum / w
}

// speedlessSpread is how much component c's pods differ once speed is
// taken out: the coefficient of variation of cost × speed over its samples,
// weighted by requests.
func speedlessSpread(usable []costSample, c string, speed map[string]float64) float64 {
	var w, m, m2 float64
	for _, s := range usable {
		if s.component == c {
			x := s.cost * speed[s.node]
			w += s.requests
			m += s.requests * x
			m2 += s.requests * x * x
		}
	}
	mean := m / w
	return math.Sqrt(math.Max(0, m2/w-mean*mean)) / mean
}

// linkedNodes groups the nodes that share a component, transitively.
func linkedNodes(samples []costSample) [][]string {
	var sets disjoint.Sets[string]
	first := map[string]string{} // component → a node it runs on
	for _, s := range samples {
		sets.Add(s.node)
		if n, ok := first[s.component]; ok {
			sets.Union(s.node, n)
		} else {
			first[s.component] = s.node
		}
	}
	out := sets.Groups()
	for _, g := range out {
		slices.Sort(g)
	}
	slices.SortFunc(out, func(a, b []string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a[0], b[0])
	})
	return out
}

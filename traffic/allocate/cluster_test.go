package allocate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/artt-dev/artt/graph"
	"github.com/artt-dev/artt/traffic"
)

// chainCluster builds a heterogeneous cluster: nodes with speeds in
// [0.8, 1.2] (per-request CPU cost ÷ speed), one-way delays of 0.2–2 ms with
// one in ten links slow (20–50 ms), and a chain of components c0 → c1 → …
// with their replicas spread round robin from a random offset.
func chainCluster(seed uint64, nodes, components, replicasPerComponent int) traffic.Snapshot {
	return chainClusterSpan(seed, nodes, components, replicasPerComponent, nodes)
}

// chainClusterSpan is chainCluster with each component's replicas on span
// consecutive nodes (from a random offset), round robin.
func chainClusterSpan(seed uint64, nodes, components, replicasPerComponent, span int) traffic.Snapshot {
	rng := rand.New(rand.NewPCG(seed, 99))
	s := traffic.Snapshot{At: time.Unix(1_000_000, 0)}
	speed := make([]float64, nodes)
	for i := range nodes {
		name := fmt.Sprintf("node-%03d", i)
		s.Nodes = append(s.Nodes, traffic.Node{Name: name, Ready: true, Locality: "region/zone/" + name})
		speed[i] = 0.8 + 0.4*rng.Float64()
	}
	for i := range nodes {
		for j := range nodes {
			if i == j {
				continue
			}
			d := 0.2 + 1.8*rng.Float64()
			if rng.IntN(10) == 0 {
				d = 20 + 30*rng.Float64()
			}
			s.Delays = append(s.Delays, graph.Delay{From: s.Nodes[i].Name, To: s.Nodes[j].Name, Ms: d})
		}
	}
	for c := range components {
		name := fmt.Sprintf("c%d", c)
		s.Components = append(s.Components, traffic.Component{Name: name})
		if c > 0 {
			s.Calls = append(s.Calls, graph.Call{From: fmt.Sprintf("c%d", c-1), To: name, Rate: 100})
		}
		cost := 0.002 + 0.01*rng.Float64()
		offset := rng.IntN(nodes)
		for r := range replicasPerComponent {
			n := (offset + r%span) % nodes
			rps := 100.0 / float64(replicasPerComponent)
			s.Replicas = append(s.Replicas, traffic.Replica{
				Name: fmt.Sprintf("%s-%d", name, r), Component: name, Node: s.Nodes[n].Name, Ready: true,
				CPU: rps * cost / speed[n], CPULimit: 1, Requests: rps, LatencyP95: 10, ErrorRate: 0,
			})
		}
	}
	return s
}

// inZones is s with its nodes in three zones (node i in zone i mod 3) and
// its delays redrawn as a multi-zone cluster measures them: 0.2–0.6 ms
// within a zone, 1.5–2.5 ms between zones, every link its own value.
func inZones(s traffic.Snapshot, seed uint64) traffic.Snapshot {
	rng := rand.New(rand.NewPCG(seed, 3))
	zone := make(map[string]int, len(s.Nodes))
	for i, n := range s.Nodes {
		zone[n.Name] = i % 3
	}
	delays := make([]graph.Delay, len(s.Delays))
	for i, d := range s.Delays {
		d.Ms = 0.2 + 0.4*rng.Float64()
		if zone[d.From] != zone[d.To] {
			d.Ms = 1.5 + rng.Float64()
		}
		delays[i] = d
	}
	s.Delays = delays
	return s
}

// checkAllocation verifies what every allocation must satisfy.
func checkAllocation(s traffic.Snapshot, a traffic.Allocation) error {
	x, err := traffic.NewIndex(s)
	if err != nil {
		return err
	}
	for _, r := range a.Routes {
		serving := map[string]bool{}
		for _, g := range x.Groups(r.Component) {
			serving[g.Node] = true
		}
		for _, src := range r.Sources {
			sum := 0.0
			for _, t := range src.To {
				if t.Value < 0 || math.IsNaN(t.Value) {
					return fmt.Errorf("%s from %s: fraction %v", r.Component, src.Node, t.Value)
				}
				if !serving[t.Node] {
					return fmt.Errorf("%s from %s: traffic to %s, which serves no replica", r.Component, src.Node, t.Node)
				}
				sum += t.Value
			}
			if math.Abs(sum-1) > 1e-9 {
				return fmt.Errorf("%s from %s: fractions sum to %v", r.Component, src.Node, sum)
			}
		}
	}
	return nil
}

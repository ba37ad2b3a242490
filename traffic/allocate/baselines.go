package allocate

import (
	"math"

	"github.com/artt-dev/artt/traffic"
)

// equalRoute: every source spreads its traffic over every ready replica
// equally, as kube-proxy and the mesh's default round robin do.
func equalRoute(x *traffic.Index, component string) (traffic.Route, bool, error) {
	groups, supplies, ok := problem(x, component)
	if !ok {
		return traffic.Route{}, false, nil
	}
	shares := replicaCountShares(groups)
	r := traffic.Route{Component: component}
	for _, s := range supplies {
		src := traffic.Source{Node: s.Node, Supply: s.Value}
		for i, g := range groups {
			src.To = append(src.To, traffic.Amount{Node: g.Node, Value: shares[i]})
		}
		r.Sources = append(r.Sources, src)
	}
	finish(x, &r, groups)
	return r, true, nil
}

// localizationRoute: every source sends everything to the nearest
// downstream node(s), split by replica count on ties. A source with no
// measured delay to any group falls back to the equal split.
func localizationRoute(x *traffic.Index, component string) (traffic.Route, bool, error) {
	groups, supplies, ok := problem(x, component)
	if !ok {
		return traffic.Route{}, false, nil
	}
	r := traffic.Route{Component: component}
	for _, s := range supplies {
		best := math.Inf(1)
		for _, g := range groups {
			if d, ok := x.Delay(s.Node, g.Node); ok && d < best {
				best = d
			}
		}
		var to []traffic.Amount
		for _, g := range groups {
			if d, ok := x.Delay(s.Node, g.Node); (ok && d == best) || math.IsInf(best, 1) {
				to = append(to, traffic.Amount{Node: g.Node, Value: float64(len(g.Replicas))})
			}
		}
		r.Sources = append(r.Sources, traffic.Source{Node: s.Node, Supply: s.Value, To: traffic.Normalize(to)})
	}
	finish(x, &r, groups)
	return r, true, nil
}

// optTrafficRoute: local first, up to the local group's fair share (its
// replica-count share of the traffic); the rest of each source's traffic is
// spread over the groups with room left, in proportion to that room.
func optTrafficRoute(x *traffic.Index, component string) (traffic.Route, bool, error) {
	groups, supplies, ok := problem(x, component)
	if !ok {
		return traffic.Route{}, false, nil
	}
	capShare := replicaCountShares(groups)
	room := make(map[string]float64, len(groups))
	for i, g := range groups {
		room[g.Node] = capShare[i]
	}
	local := make(map[string]float64)
	for _, s := range supplies {
		if c, ok := room[s.Node]; ok {
			take := math.Min(s.Value, c)
			local[s.Node] = take
			room[s.Node] -= take
		}
	}
	totalRoom := 0.0
	for _, c := range room {
		totalRoom += c
	}
	r := traffic.Route{Component: component}
	for _, s := range supplies {
		// Fractions of the source's own traffic, not amounts: a source
		// sending a vanishing share of the total (1e-308 beside a replica
		// whose count overflows) still needs a whole routing, and its
		// amounts would round to nothing.
		localFraction := 0.0
		if s.Value > 0 {
			localFraction = local[s.Node] / s.Value
		}
		flows := make(map[string]float64)
		flows[s.Node] += localFraction
		if rest := 1 - localFraction; rest > 0 {
			for i, g := range groups {
				if totalRoom > 0 {
					flows[g.Node] += rest * room[g.Node] / totalRoom
				} else {
					// Local traffic filled every group (a vanishing rest
					// beside it): spread by the fair shares themselves.
					flows[g.Node] += rest * capShare[i]
				}
			}
		}
		var to []traffic.Amount
		for _, g := range groups {
			to = append(to, traffic.Amount{Node: g.Node, Value: flows[g.Node]})
		}
		r.Sources = append(r.Sources, traffic.Source{Node: s.Node, Supply: s.Value, To: traffic.Normalize(to)})
	}
	finish(x, &r, groups)
	return r, true, nil
}

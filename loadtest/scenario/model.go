package scenario

import (
	"math"
	"math/rand/v2"
)

// DelayMatrix is the one-way delay in milliseconds from each node to each
// other, indexed in the order of Nodes: LocalMs within a node, DefaultMs
// between nodes, RackMs within a rack, a link's own delay where one is
// listed, each scaled by Scale (LocalMs is not). The cluster must have
// been filled by Parse.
func (c Cluster) DelayMatrix() [][]float64 {
	idx := make(map[string]int, len(c.Nodes))
	for i, n := range c.Nodes {
		idx[n.Name] = i
	}
	d := c.Delays
	m := make([][]float64, len(c.Nodes))
	for i := range m {
		m[i] = make([]float64, len(c.Nodes))
		for j := range m[i] {
			if i == j {
				m[i][j] = *d.LocalMs
			} else {
				m[i][j] = d.DefaultMs * d.Scale
			}
		}
	}
	for _, rack := range d.Racks {
		for _, a := range rack {
			for _, b := range rack {
				if a != b {
					m[idx[a]][idx[b]] = d.RackMs * d.Scale
				}
			}
		}
	}
	for _, l := range d.Links {
		m[idx[l.From]][idx[l.To]] = l.Ms * d.Scale
		if l.Symmetric {
			m[idx[l.To]][idx[l.From]] = l.Ms * d.Scale
		}
	}
	return m
}

// DrawCPU draws one request's CPU time in seconds on a speed-1 node from
// the component's demand distribution: exponential with mean
// CPUPerRequest (the default), constant, or lognormal of that mean and
// coefficient of variation DemandCV.
func (c Component) DrawCPU(rng *rand.Rand) float64 {
	mean := c.CPUPerRequest.Seconds()
	switch c.Demand {
	case "constant":
		return mean
	case "lognormal":
		s2 := math.Log1p(c.DemandCV * c.DemandCV)
		return math.Exp(math.Log(mean) - s2/2 + math.Sqrt(s2)*rng.NormFloat64())
	default:
		return mean * rng.ExpFloat64()
	}
}

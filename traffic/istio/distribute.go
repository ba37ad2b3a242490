// Package istio turns a traffic.Route into Istio's
// DestinationRule.trafficPolicy.loadBalancer.localityLbSetting.distribute
// entries and checks them against the rules istiod's validation enforces
// (the CRD schema does not): every weight an integer in [1, 100], the weights
// of one `from` summing to exactly 100, no two `from` entries the same,
// localities with non-empty region/zone/subzone parts. It does no I/O: the
// controller writes the result.
package istio

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/artt-dev/artt/traffic"
)

// Distribute is one `distribute` entry: traffic from locality From is split
// over the localities in To by integer weights.
type Distribute struct {
	From string
	To   map[string]uint32
}

// Distributes converts a route: one entry per upstream node, keyed by the
// nodes' localities (locality returns a node's region/zone/subzone). Weights
// are the fractions × 100 rounded by the largest-remainder method, so each
// entry sums to exactly 100; a locality whose weight rounds to 0 is left out
// (its sliver of traffic goes to the others). Ties in remainders go to the
// locality that sorts first, so the result is deterministic. A route left to
// Envoy has no entries.
func Distributes(r traffic.Route, locality func(node string) (string, bool)) ([]Distribute, error) {
	if r.Envoy {
		return nil, nil // no weights: the sidecars balance on their own
	}
	var out []Distribute
	for _, s := range r.Sources {
		from, ok := locality(s.Node)
		if !ok {
			return nil, &traffic.FieldError{Field: "node", Value: s.Node, Reason: "has no Istio locality"}
		}
		keys := make([]string, 0, len(s.To))
		fractions := make([]float64, 0, len(s.To))
		for _, t := range s.To {
			to, ok := locality(t.Node)
			if !ok {
				return nil, &traffic.FieldError{Field: "node", Value: t.Node, Reason: "has no Istio locality"}
			}
			keys = append(keys, to)
			fractions = append(fractions, t.Value)
		}
		weights, err := RoundToPercent(keys, fractions)
		if err != nil {
			return nil, fmt.Errorf("from %s: %w", from, err)
		}
		d := Distribute{From: from, To: make(map[string]uint32, len(weights))}
		for i, k := range keys {
			if weights[i] > 0 {
				d.To[k] = weights[i]
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Distribute) int { return strings.Compare(a.From, b.From) })
	if err := Validate(out); err != nil {
		return nil, err
	}
	return out, nil
}

// RoundToPercent rounds non-negative fractions (any positive total) to
// integers summing to exactly 100 by the largest-remainder (Hamilton)
// method. keys break ties: the smaller key wins.
func RoundToPercent(keys []string, fractions []float64) ([]uint32, error) {
	if len(keys) != len(fractions) {
		return nil, fmt.Errorf("%d keys for %d fractions", len(keys), len(fractions))
	}
	total := 0.0
	for i, f := range fractions {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return nil, &traffic.FieldError{Field: "fraction[" + keys[i] + "]", Value: f, Reason: "must be a finite number ≥ 0"}
		}
		total += f
	}
	if !(total > 0) {
		return nil, &traffic.FieldError{Field: "fractions", Value: total, Reason: "must have a positive sum"}
	}
	out := make([]uint32, len(fractions))
	rem := make([]float64, len(fractions))
	given := 0
	for i, f := range fractions {
		exact := 100 * f / total
		out[i] = uint32(math.Floor(exact))
		rem[i] = exact - math.Floor(exact)
		given += int(out[i])
	}
	order := make([]int, len(fractions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if rem[a] != rem[b] {
			if rem[a] > rem[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(keys[a], keys[b])
	})
	for k := 0; given < 100; k++ {
		out[order[k%len(order)]]++
		given++
	}
	return out, nil
}

// Validate applies istiod's rules for `distribute`.
func Validate(ds []Distribute) error {
	seen := make(map[string]bool, len(ds))
	for i, d := range ds {
		field := fmt.Sprintf("distribute[%d]", i)
		if err := checkLocality(field+".from", d.From); err != nil {
			return err
		}
		if seen[d.From] {
			return &traffic.FieldError{Field: field + ".from", Value: d.From, Reason: "duplicate from locality"}
		}
		seen[d.From] = true
		if len(d.To) == 0 {
			return &traffic.FieldError{Field: field + ".to", Value: "{}", Reason: "must not be empty"}
		}
		sum := uint32(0)
		for loc, w := range d.To {
			if err := checkLocality(field+".to", loc); err != nil {
				return err
			}
			if w < 1 || w > 100 {
				return &traffic.FieldError{Field: field + ".to[" + loc + "]", Value: w, Reason: "weight must be in [1, 100]"}
			}
			sum += w
		}
		if sum != 100 {
			return &traffic.FieldError{Field: field + ".to", Value: sum, Reason: "weights must sum to 100"}
		}
	}
	return nil
}

// checkLocality accepts region/zone/subzone with non-empty parts, each a
// valid label value of at most 63 characters.
func checkLocality(field, loc string) error {
	parts := strings.Split(loc, "/")
	if len(parts) != 3 {
		return &traffic.FieldError{Field: field, Value: loc, Reason: "must be region/zone/subzone"}
	}
	for _, p := range parts {
		if p == "" || p == "*" {
			return &traffic.FieldError{Field: field, Value: loc, Reason: "region, zone and subzone must be non-empty and not wildcards (one locality per node)"}
		}
		if len(p) > 63 {
			return &traffic.FieldError{Field: field, Value: loc, Reason: "each part is a label value of at most 63 characters"}
		}
	}
	return nil
}

package health_test

import (
	"fmt"
	"math"
	"time"

	"github.com/artt-dev/artt/traffic/health"
)

// A group whose CPU time per request triples while its peers' stays is
// Degraded at once, its weight cut to a third: the share at which its
// utilisation stays where it was.
func ExampleTracker_Observe() {
	tr := health.New(health.DefaultConfig())
	at := time.Unix(0, 0)
	observe := func(cost float64) health.Status {
		at = at.Add(15 * time.Second)
		return tr.Observe("node-a", at, health.Observation{
			P95Ms: math.NaN(), ErrorRate: 0, PeerP95Ms: math.NaN(), PeerErrorRate: 0,
			Utilization: 0.3, CostPerRequest: cost, PeerCostChange: 1, CostRate: 30,
		})
	}
	for range 4 {
		observe(0.010)
	}
	s := observe(0.030)
	fmt.Printf("%s, weight %.2f\n", s.State, s.Weight)
	// Output: Degraded, weight 0.33
}

package emulator

import "math/rand/v2"

// The lab draws the workload from streams of its own, apart from the
// policies' picks, so that every run of a scenario at one seed sees the same
// requests: the same arrival times, the same gateway for each, and the same
// CPU work and network jitter for each call, whatever routes it (common
// random numbers). Two policies are then compared on one workload, not on two
// draws of it.
//
//   - arrivals: each arrival's time and the gateway the outer balancer sends
//     it to, in arrival order, which no policy changes;
//   - each call's own draws, keyed by its path from the root (the arrival's
//     index, then each call's position among its caller's calls), so that a
//     call draws the same whenever and wherever it runs;
//   - e.rng: everything a policy does at random (balancers' picks, placement
//     ties, the delays its measurements read).

// What a call draws from its key; each is its own stream.
const (
	drawWork uint64 = iota + 1
	drawHopOut
	drawHopBack
)

// callDraws hands out a call's stream for one purpose. It reseeds one
// generator rather than keep one per request: a PCG's state is two words.
type callDraws struct {
	seeds [drawHopBack + 1]uint64 // per purpose, from the run's seed
	src   rand.PCG
	rng   *rand.Rand
}

func newCallDraws(seed uint64) *callDraws {
	d := &callDraws{}
	base := mix64(seed ^ 0xca11)
	for purpose := range d.seeds {
		d.seeds[purpose] = mix64(base + uint64(purpose))
	}
	d.rng = rand.New(&d.src)
	return d
}

// of returns the stream for purpose of the call with key. It is valid until
// the next call of of: draw from it at once.
func (d *callDraws) of(key, purpose uint64) *rand.Rand {
	d.src.Seed(d.seeds[purpose], key)
	return d.rng
}

// rootKey is the key of the n-th arrival.
func rootKey(n uint64) uint64 { return mix64(n + 1) }

// childKey is the key of a call's callIdx-th downstream call.
func childKey(parent uint64, callIdx int) uint64 {
	return mix64(parent ^ mix64(uint64(callIdx)+0x9e3779b97f4a7c15))
}

// mix64 is SplitMix64's finaliser: neighbouring inputs give unrelated
// outputs, so consecutive arrivals' keys seed unrelated streams.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

package workload

import "math/rand/v2"

// A workload is drawn from streams of its own, apart from anything a
// routing or scaling policy draws, so that every run at one seed sees the
// same requests: the same arrival times, the same gateway for each, and the
// same CPU work and network jitter for each call, whatever routes it
// (common random numbers). Two policies are then compared on one workload,
// not on two draws of it; and a live run, whose load generator and pods
// draw from the same streams, sees the lab's requests at its seed.
//
//   - Arrivals: each arrival's time (Rate.Next) and the gateway the outer
//     balancer sends it to, in arrival order, which no policy changes;
//   - CallDraws: each call's own draws, keyed by its path from the root
//     (the arrival's index, then each call's position among its caller's
//     calls), so that a call draws the same whenever and wherever it runs.

// Arrivals is the stream of a seed's arrival times and gateways.
func Arrivals(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xa221)) }

// Draw is what a call draws from its key; each is its own stream.
type Draw uint64

const (
	// DrawWork is the call's CPU work.
	DrawWork Draw = iota + 1
	// DrawHopOut is the jitter of the hop from the caller to the call's pod.
	DrawHopOut
	// DrawHopBack is the jitter of the hop back with the answer.
	DrawHopBack
)

// CallDraws hands out a call's stream for one purpose. It reseeds one
// generator rather than keep one per call (a PCG's state is two words), so
// it is not safe for concurrent use.
type CallDraws struct {
	seeds [DrawHopBack + 1]uint64 // per purpose, from the run's seed
	src   rand.PCG
	rng   *rand.Rand
}

// NewCallDraws is a seed's call streams.
func NewCallDraws(seed uint64) *CallDraws {
	d := &CallDraws{}
	base := mix64(seed ^ 0xca11)
	for purpose := range d.seeds {
		d.seeds[purpose] = mix64(base + uint64(purpose))
	}
	d.rng = rand.New(&d.src)
	return d
}

// Of returns the stream for what the call with key draws. It is valid
// until the next call of Of: draw from it at once.
func (d *CallDraws) Of(key uint64, what Draw) *rand.Rand {
	d.src.Seed(d.seeds[what], key)
	return d.rng
}

// RootKey is the key of the n-th arrival, counted from 0.
func RootKey(n uint64) uint64 { return mix64(n + 1) }

// ChildKey is the key of a call's callIdx-th downstream call.
func ChildKey(parent uint64, callIdx int) uint64 {
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

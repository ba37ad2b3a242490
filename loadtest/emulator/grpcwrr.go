package emulator

import (
	"math"
	"slices"
)

// gRPC-Go's weighted_round_robin picker (gRFC A58; grpc-go v1.84
// balancer/weightedroundrobin), as a gRPC client runs it for the cswrr
// routing: the endpoint weights are Envoy's (cswrr.go: the same ORCA
// reports, blackout and expiration), but the schedule is gRPC's own.
//
//   - Every weight update period the picker builds a new scheduler from
//     the weights: a static stride scheduler over the weights scaled to
//     uint16 (the largest to 65535), endpoints without a usable weight at
//     the mean of the others; plain round robin when all weigh the same or
//     fewer than two have a weight.
//   - Both schedulers draw from one sequence number, which the picker keeps
//     across those rebuilds and starts at a random point. A client sending
//     a few requests a second so walks on through the rotation, where a
//     schedule started afresh every second would give its first picks to
//     the same few endpoints each time, and starve the rest.
//   - A new picker, with a new random start, comes with every change of
//     the endpoints.
type grpcWRR struct {
	hosts   []*replica
	version uint64   // the component's routingVersion the picker was built for
	seq     uint32   // the picker's sequence number
	weights []uint16 // the stride scheduler's; nil: round robin
	builtAt float64
}

const strideMaxWeight = math.MaxUint16

// pickGRPCWRR picks one of hosts (every ready pod: gRPC's
// weighted_round_robin has no locality layer) for the caller u.
func (e *Emulator) pickGRPCWRR(u *envoyCluster, hosts []*replica) *replica {
	w := &u.grpcWRR
	if w.version != u.comp.routingVersion || !slices.Equal(w.hosts, hosts) {
		w.hosts = append(w.hosts[:0], hosts...)
		w.version, w.seq = u.comp.routingVersion, e.rng.Uint32()
		e.scheduleGRPCWRR(u, w)
	} else if e.now-w.builtAt >= cswrrUpdatePeriod {
		e.scheduleGRPCWRR(u, w)
	}
	return w.hosts[w.next()]
}

// scheduleGRPCWRR rebuilds the picker's scheduler from the caller's
// current weights (grpc-go's newScheduler).
func (e *Emulator) scheduleGRPCWRR(u *envoyCluster, w *grpcWRR) {
	w.builtAt = e.now
	w.weights = w.weights[:0]
	raw := make([]float64, len(w.hosts))
	var sum, top float64
	zeros := 0
	for i, h := range w.hosts {
		if h.id < len(u.orca) {
			raw[i] = u.orca[h.id].weightAt(e.now)
		}
		sum += raw[i]
		top = math.Max(top, raw[i])
		if raw[i] == 0 {
			zeros++
		}
	}
	if len(raw) < 2 || zeros >= len(raw)-1 {
		w.weights = nil
		return
	}
	scale := strideMaxWeight / top
	mean := uint16(math.Round(scale * sum / float64(len(raw)-zeros)))
	allEqual := true
	for _, r := range raw {
		x := mean
		if r > 0 {
			x = uint16(math.Round(scale * r))
			allEqual = allEqual && x == mean
		}
		w.weights = append(w.weights, x)
	}
	if allEqual {
		w.weights = nil
	}
}

// next is the scheduler's next index (grpc-go's rrScheduler and
// edfScheduler.nextIndex): the sequence number's remainder is the
// endpoint, its quotient the generation, and an endpoint of weight w is
// taken in w of every 65535 generations, spread evenly.
func (w *grpcWRR) next() int {
	n := uint64(len(w.hosts))
	if w.weights == nil {
		w.seq++
		return int(uint64(w.seq) % n)
	}
	const offset = strideMaxWeight / 2
	for {
		w.seq++
		idx := uint64(w.seq)
		i, generation := idx%n, idx/n
		weight := uint64(w.weights[i])
		if (weight*generation+i*offset)%strideMaxWeight >= strideMaxWeight-weight {
			return int(i)
		}
	}
}

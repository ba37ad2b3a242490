// Package loadgen is the live loop's open-loop load generator: Poisson
// arrivals at a scenario's rate, each request sent on its own goroutine
// and timed from its scheduled send time, so a stalled client or a slow
// answer cannot delay the next request or hide its own wait (the
// coordinated omission a closed loop suffers).
package loadgen

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/workload"
)

// Config is one generator's run.
type Config struct {
	Rate     workload.Rate
	Duration time.Duration
	Timeout  time.Duration
	// Seed is the workload's: the arrivals are the lab's at that seed
	// (workload.Arrivals), and the n-th carries workload.RootKey(n).
	Seed uint64
	// Node and Workload are what the entry's pods see as the caller.
	Node, Workload string
	// Sent, when set, is called for every request answered.
	Sent func(destination string, code codes.Code)
}

// Record is one request.
type Record struct {
	// At is its scheduled send time, seconds from the start.
	At float64
	// LatencyMs runs from the scheduled send time to the answer.
	LatencyMs float64
	// LagUs is how late the request left after its scheduled time.
	LagUs float64
	Code  codes.Code
}

// Counts are the generator's progress.
type Counts struct {
	Sent, Failed, InFlight int64
}

// Generator sends the load.
type Generator struct {
	cfg                    Config
	sent, failed, inFlight atomic.Int64
}

// New makes a generator.
func New(cfg Config) *Generator { return &Generator{cfg: cfg} }

// Counts are the requests sent and failed so far, and those awaiting an
// answer.
func (g *Generator) Counts() Counts {
	return Counts{Sent: g.sent.Load(), Failed: g.failed.Load(), InFlight: g.inFlight.Load()}
}

// Run sends the load to conn until the duration ends (or ctx does), waits
// for the answers still due, and returns every request in the order sent.
func (g *Generator) Run(ctx context.Context, conn *grpc.ClientConn, entry string) []Record {
	rng := workload.Arrivals(g.cfg.Seed)
	var (
		mu      sync.Mutex
		records []Record
		wg      sync.WaitGroup
	)
	start := time.Now()
	end := g.cfg.Duration.Seconds()
	for t := g.cfg.Rate.Next(0, rng); t < end; t = g.cfg.Rate.Next(t, rng) {
		scheduled := start.Add(time.Duration(t * float64(time.Second)))
		select {
		case <-ctx.Done():
			end = 0
			continue
		case <-time.After(time.Until(scheduled)):
		}
		mu.Lock()
		records = append(records, Record{At: t})
		i := len(records) - 1
		mu.Unlock()
		wg.Add(1)
		g.sent.Add(1)
		g.inFlight.Add(1)
		go func() {
			defer wg.Done()
			lag := time.Since(scheduled)
			md := metadata.Pairs(backend.CallerNodeKey, g.cfg.Node, backend.CallerWorkloadKey, g.cfg.Workload,
				backend.CallKeyKey, backend.FormatCallKey(workload.RootKey(uint64(i))))
			rctx, cancel := context.WithDeadline(metadata.NewOutgoingContext(ctx, md), scheduled.Add(g.cfg.Timeout))
			err := backend.Call(rctx, conn)
			cancel()
			took := time.Since(scheduled)
			code := status.Code(err)
			g.inFlight.Add(-1)
			if code != codes.OK {
				g.failed.Add(1)
			}
			if g.cfg.Sent != nil {
				g.cfg.Sent(entry, code)
			}
			mu.Lock()
			records[i].LatencyMs = float64(took.Microseconds()) / 1000
			records[i].LagUs = float64(lag.Nanoseconds()) / 1000
			records[i].Code = code
			mu.Unlock()
		}()
	}
	wg.Wait()
	return records
}

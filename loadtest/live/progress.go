package live

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/artt-dev/artt/loadtest/live/loadgen"
)

// Progress tells a person watching what the harness is doing: the run,
// its phase, the time left, and the requests sent and failed so far,
// every few seconds while a run sends load. A nil Progress shows nothing.
type Progress struct {
	w      io.Writer
	every  time.Duration
	mu     sync.Mutex
	run    string
	phase  string
	end    time.Time
	counts loadgen.Counts
}

// NewProgress writes to w a line at every change of phase, and one every
// `every` while load is sent.
func NewProgress(w io.Writer, every time.Duration) *Progress { return &Progress{w: w, every: every} }

// Phase starts a phase of no known length.
func (p *Progress) Phase(s string) { p.set(s, time.Time{}) }

// Timed starts a phase that ends at end.
func (p *Progress) Timed(s string, end time.Time) { p.set(s, end) }

func (p *Progress) set(s string, end time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.phase, p.end = s, end
	p.mu.Unlock()
	p.print()
}

// Note prints a line about something that happened in the run under way,
// such as an event applied.
func (p *Progress) Note(s string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	line := s
	if p.run != "" {
		line = p.run + ": " + s
	}
	p.mu.Unlock()
	fmt.Fprintf(p.w, "%s  %s\n", time.Now().Format("15:04:05"), line)
}

// Run names the run under way (i of n, from 1).
func (p *Progress) Run(i, n int, label string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.run, p.counts = fmt.Sprintf("run %d/%d %s", i, n, label), loadgen.Counts{}
	p.mu.Unlock()
}

// Counts updates the load generator's counts.
func (p *Progress) Counts(c loadgen.Counts) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.counts = c
	p.mu.Unlock()
}

// Tick prints a line every interval until ctx ends.
func (p *Progress) Tick(ctx context.Context) {
	if p == nil {
		return
	}
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.print()
		}
	}
}

func (p *Progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := p.phase
	if p.run != "" {
		line = p.run + ": " + line
	}
	if !p.end.IsZero() {
		line += fmt.Sprintf(", %s left", time.Until(p.end).Round(time.Second))
	}
	if p.counts.Sent > 0 {
		line += fmt.Sprintf("; sent %d, failed %d, in flight %d", p.counts.Sent, p.counts.Failed, p.counts.InFlight)
	}
	fmt.Fprintf(p.w, "%s  %s\n", time.Now().Format("15:04:05"), line)
}

package backend

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A lone request's turns at a sixteenth of a core: each ends when the
// limit has earned it, so 4 ms of work ends at 64 ms, as processor sharing
// at the limit ends it, even when a turn wakes late (the next ones make it
// up); an idle spell earns nothing ahead.
func TestPacerSchedulesALoneRequestAtItsLimit(t *testing.T) {
	const turn = 250 * time.Microsecond
	p := newPacer(1.0 / 16)
	p.resume(0)
	now := time.Duration(0)
	for i := range 16 {
		start := max(now, p.reserve(turn))
		if i == 3 {
			start += 2 * time.Millisecond // the thread woke late
		}
		now = start + turn // the turn, at full speed
	}
	if now != 64*time.Millisecond {
		t.Errorf("4 ms of work at a sixteenth of a core ends at %s; want 64ms", now)
	}
	idle := now + time.Second
	p.resume(idle)
	if start := p.reserve(turn); start != idle+15*turn {
		t.Errorf("after an idle second a turn starts %s after the request; want %s, the turn's own earning", start-idle, 15*turn)
	}
}

// Two workers of a pod of one and a half cores run turns side by side,
// and the pod spends its limit: twelve turns of 250 µs (3 ms) are earned
// by 2 ms.
func TestPacerSpendsAFractionalLimitAcrossWorkers(t *testing.T) {
	const turn = 250 * time.Microsecond
	p := newPacer(1.5)
	p.resume(0)
	var last time.Duration
	for range 12 {
		last = p.reserve(turn) + turn
	}
	if d := last - 2*time.Millisecond; d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("the twelfth turn ends at %s; want 2ms", last)
	}
	if newPacer(2) != nil {
		t.Error("a pod of two whole cores is paced; its two workers cannot exceed it")
	}
}

// On the wall: a lone 4 ms request at a sixteenth of a core takes at least
// the 64 ms its limit takes, where a quota's bursts served it in about 42,
// and eight at once take at least their 512 ms; each spends its work.
func TestPacedPodServesAtItsLimit(t *testing.T) {
	if err := CheckClock(); err != nil {
		t.Skip(err)
	}
	var progress atomic.Int64
	p, err := newProcessor(1.0/16, &progress, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	p.Spend(4 * time.Millisecond)
	if took := time.Since(start); took < 60*time.Millisecond {
		t.Errorf("a lone 4 ms request at a sixteenth of a core took %s; its limit takes 64ms", took)
	}
	start = time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); p.Spend(4 * time.Millisecond) }()
	}
	wg.Wait()
	took := time.Since(start)
	t.Logf("8 × 4 ms at a sixteenth of a core: %s (the limit: 512ms)", took)
	if took < 480*time.Millisecond {
		t.Errorf("eight 4 ms requests at a sixteenth of a core took %s; the limit takes 512ms", took)
	}
	if spent := time.Duration(progress.Load()); spent < 36*time.Millisecond {
		t.Errorf("the workers spent %s on 36ms of work", spent)
	}
}

package backend

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Requests share the pod's CPU in turns: a short request that arrives
// while a long one is running finishes first, as under processor sharing
// (first come, first served would finish the long one first), and the
// work is spent in full.
func TestProcessorSharesTheCPU(t *testing.T) {
	if err := CheckClock(); err != nil {
		t.Skip(err)
	}
	var progress atomic.Int64
	p, err := newProcessor(0.5, &progress, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	spend := func(name string, d time.Duration) {
		defer wg.Done()
		p.Spend(d)
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	wg.Add(2)
	go spend("long", 60*time.Millisecond)
	time.Sleep(5 * time.Millisecond) // the long request has begun its turns
	go spend("short", 5*time.Millisecond)
	wg.Wait()
	if len(order) != 2 || order[0] != "short" {
		t.Errorf("finished in the order %v; want the short request first", order)
	}
	if got := time.Duration(progress.Load()); got < 65*time.Millisecond {
		t.Errorf("the workers spent %s on 65ms of work", got)
	}
}

// Close releases the requests waiting for their turns, and later ones
// return at once.
func TestProcessorCloseReleasesWaiters(t *testing.T) {
	if err := CheckClock(); err != nil {
		t.Skip(err)
	}
	var progress atomic.Int64
	p, err := newProcessor(1, &progress, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			go func() { defer wg.Done(); p.Spend(time.Second) }()
		}
		wg.Wait()
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	p.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("20 requests of a second each still waited 10 s after Close")
	}
	p.Spend(time.Second) // returns: the processor is closed
}

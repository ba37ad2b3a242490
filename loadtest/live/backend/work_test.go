package backend

import (
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Burn spends at least what it is asked of the thread's CPU, and says so.
func TestBurnSpendsThreadCPU(t *testing.T) {
	if err := CheckClock(); err != nil {
		t.Skip(err)
	}
	before := processCPU(t)
	var progress atomic.Int64
	spent := Burn(20*time.Millisecond, &progress)
	if spent < 20*time.Millisecond {
		t.Errorf("Burn(20ms) reports %s", spent)
	}
	if got := time.Duration(progress.Load()); got != spent {
		t.Errorf("Burn(20ms) added %s to its progress, and reports %s spent", got, spent)
	}
	if used := processCPU(t) - before; used < 20*time.Millisecond {
		t.Errorf("the process used %s of CPU during Burn(20ms)", used)
	}
}

func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

package backend

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A worker under a quota of a tenth of a core that wants a whole one is
// throttled by its own quota in most periods and waits nine tenths of the
// time: the series say both, as cAdvisor would for a container at its
// limit.
func TestPressureSeriesCountAThrottledWorker(t *testing.T) {
	if err := CheckClock(); err != nil {
		t.Skip(err)
	}
	dir := testCgroup(t, cpuRoot, "pressure")
	for file, v := range map[string]string{"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "10000"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := NewMetrics("shop", "backend-0", "backend", "")
	if err := m.countPressure([]string{dir}); err != nil {
		t.Fatal(err)
	}
	var progress atomic.Int64
	p, err := newProcessor(1, &progress, Cgroups{Work: []string{dir}}.joinThread)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p.Spend(100 * time.Millisecond) // a second of wall time at a tenth of a core
	wall := time.Since(start).Seconds()
	waiting, throttled := gather(t, m, WaitingCounter), gather(t, m, ThrottledCounter)
	p.Close()
	t.Logf("100 ms of work under a 10%% quota took %.2f s: waited %.2f s, throttled in %.0f periods", wall, waiting, throttled)
	if waiting < 0.6*wall || waiting > wall {
		t.Errorf("waited %.2f s of %.2f s at a tenth of a core, want about nine tenths", waiting, wall)
	}
	if period := gather(t, m, PeriodGauge); period != 100000 {
		t.Errorf("%s %v, want the cgroup's 100000 µs", PeriodGauge, period)
	}
	if throttled < 5 {
		t.Errorf("throttled in %.0f periods over %.2f s, want most of them", throttled, wall)
	}
}

// gather is the pod's counter or gauge of that name.
func gather(t *testing.T, m *Metrics, name string) float64 {
	t.Helper()
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			if g := mf.GetMetric()[0].GetGauge(); g != nil {
				return g.GetValue()
			}
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	names := []string{}
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	t.Fatalf("no %s among %s", name, strings.Join(names, ", "))
	return 0
}

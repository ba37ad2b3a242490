package backend

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// The series cAdvisor exports for a container's CPU pressure and its own
// quota's throttling, which artt-traffic's default queries read.
const (
	WaitingCounter   = "container_pressure_cpu_waiting_seconds_total"
	ThrottledCounter = "container_cpu_cfs_throttled_periods_total"
	PeriodGauge      = "container_spec_cpu_period"
)

// countPressure exports, under cAdvisor's names, the CPU pressure of the
// pod's work threads and its own quota's throttled periods, read from its
// cgroup v1 cpu directory (the Work directory holding cpu.stat).
//
// This kernel has no per-cgroup PSI file (cgroup v2's cpu.pressure), so
// the waiting is the threads' run_delay from /proc/self/task/TID/schedstat:
// the time each was runnable and not running, CFS throttling included,
// summed over the threads. PSI's "some" counts a moment once however many
// threads wait in it, so this reads higher than a cgroup v2 node would for
// a pod with several threads waiting at once. nr_throttled in cpu.stat
// counts the periods in which the pod's own quota stopped it; a quota on
// its node's cgroup above it is counted there, not here, as on a cluster.
// The periods are the pod's own (cpu.cfs_period_us, in microseconds as
// cAdvisor's container_spec_cpu_period): the harness's are shorter than
// the kubelet's 100 ms (see the live package's cfs).
func (m *Metrics) countPressure(dirs []string) error {
	dir := ""
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "cpu.stat")); err == nil {
			dir = d
		}
	}
	if dir == "" {
		return nil // not in a cpu cgroup: no series, as cAdvisor without one
	}
	labels := prometheus.Labels{"namespace": m.ns, "pod": m.pod, "container": "app"}
	waiting := &threadWaiting{tasks: filepath.Join(dir, "tasks"), last: map[int]uint64{}}
	m.Registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: WaitingCounter, Help: "Seconds the pod's work threads were runnable and not running (summed run_delay), standing for cgroup v2's CPU pressure.", ConstLabels: labels,
		}, waiting.seconds),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: ThrottledCounter, Help: "CFS periods in which the pod's own CPU quota throttled it (its cgroup's nr_throttled).", ConstLabels: labels,
		}, func() float64 { v, _ := readCPUStat(filepath.Join(dir, "cpu.stat"), "nr_throttled"); return v }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: PeriodGauge, Help: "The period of the pod's CPU quota in microseconds (its cgroup's cpu.cfs_period_us).", ConstLabels: labels,
		}, func() float64 { return readNumber(filepath.Join(dir, "cpu.cfs_period_us")) }),
	)
	return nil
}

// threadWaiting sums the run_delay of the threads in a cgroup's tasks
// file, keeping what threads that left had waited, so that the sum only
// grows.
type threadWaiting struct {
	tasks string
	mu    sync.Mutex
	total uint64
	last  map[int]uint64 // per thread, its run_delay when last read
}

func (w *threadWaiting) seconds() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	tids, err := readTasks(w.tasks)
	if err != nil {
		return float64(w.total) / 1e9
	}
	seen := make(map[int]uint64, len(tids))
	for _, tid := range tids {
		delay, err := runDelay(tid)
		if err != nil {
			continue // it exited between the two reads
		}
		if prev, ok := w.last[tid]; ok && delay >= prev {
			w.total += delay - prev
		} else if !ok {
			w.total += delay
		}
		seen[tid] = delay
	}
	w.last = seen
	return float64(w.total) / 1e9
}

func readTasks(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tids []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if tid, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, sc.Err()
}

// runDelay is a thread's run_delay in nanoseconds: the second field of its
// schedstat.
func runDelay(tid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/schedstat", tid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("schedstat of %d: %q", tid, b)
	}
	return strconv.ParseUint(f[1], 10, 64)
}

// readCPUStat reads one field of a cgroup v1 cpu.stat file.
func readCPUStat(path, field string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, value, ok := strings.Cut(line, " "); ok && name == field {
			return strconv.ParseFloat(strings.TrimSpace(value), 64)
		}
	}
	return 0, fmt.Errorf("%s: no %s", path, field)
}

// readNumber is the number a cgroup file holds, NaN when unreadable (the
// series then has no sample Prometheus keeps).
func readNumber(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

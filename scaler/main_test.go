package scaler

import (
	"flag"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/artt-dev/artt/internal/promtest"
)

// prom is the Prometheus started for this package's tests, scraping
// exporter; nil when the binary is missing and tests skip.
var (
	prom        *promtest.Server
	promMissing string
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	flag.Parse()
	if fuzzing() {
		// Fuzz targets are pure; every fuzz worker process runs TestMain,
		// and each starting a Prometheus would only slow them down.
		promMissing = "fuzzing"
		return m.Run()
	}
	if _, err := promtest.Binary(); err != nil {
		promMissing = err.Error()
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "artt-scaler-prom-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	var stop func()
	prom, stop, err = promtest.StartWithExporter(dir, promtest.NewExporter(promtest.ShopSeries()), time.Second,
		`istio_requests_total{destination_workload="web"}`, 8)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	return m.Run()
}

// fuzzing reports whether this process runs a fuzz target (as the
// coordinator or as one of its workers).
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// needProm skips (or, when components are required, fails) without Prometheus.
func needProm(t *testing.T) {
	t.Helper()
	if prom != nil {
		return
	}
	if promtest.Required() {
		t.Fatalf("Prometheus is required but missing: %s", promMissing)
	}
	t.Skipf("Prometheus not installed, skipping (apt-get install prometheus): %s", promMissing)
}

func approx(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

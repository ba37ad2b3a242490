package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/artt-dev/artt/traffic/controller"
)

func TestParseFlags(t *testing.T) {
	f, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.policy != "artt" || f.interval != 30*time.Second || !f.leaderElect || f.dryRun || f.dataPlane != "envoy" {
		t.Errorf("defaults %+v", f)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--policy=fastest"}, `--policy = "fastest"`},
		{[]string{"--interval=10ms"}, "--interval = 10ms"},
		{[]string{"--protect-interval=100ms"}, "--protect-interval = 100ms"},
		{[]string{"--query-timeout=0s"}, "--query-timeout"},
		{[]string{"--max-response-bytes=0"}, "--max-response-bytes"},
		{[]string{"--cfs-quota-period=2s"}, "--cfs-quota-period = 2s"},
		{[]string{"--data-plane=linkerd"}, `--data-plane = "linkerd": must be "envoy" or "grpc"`},
		{[]string{"--interval=1m", "--forget-after=30s"}, "--forget-after = 30s: must be at least --interval (1m0s)"},
	} {
		if _, err := parseFlags(c.args); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("parseFlags(%v) error %v, want %q", c.args, err, c.says)
		}
	}
}

// Every bad flag is reported at once.
func TestEveryFlagProblemAtOnce(t *testing.T) {
	_, err := parseFlags([]string{"--policy=fastest", "--interval=10ms", "--query-timeout=0s"})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`--policy = "fastest"`, "--interval = 10ms", "--query-timeout = 0s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not report %q", err, want)
		}
	}
}

func TestVersionFlagAsksForTheVersion(t *testing.T) {
	if _, err := parseFlags([]string{"--version"}); !errors.Is(err, errVersion) {
		t.Errorf("--version: %v, want errVersion", err)
	}
}

// --recording-rules reads the recorded series, except where a query flag
// is given; without it every query is the default.
func TestRecordingRulesFlag(t *testing.T) {
	f, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.queries != controller.DefaultQueries() {
		t.Errorf("queries %+v without --recording-rules, want the defaults", f.queries)
	}
	f, err = parseFlags([]string{"--recording-rules", "--delay-query=my_delay_ms"})
	if err != nil {
		t.Fatal(err)
	}
	want := controller.RecordedQueries()
	want.Delay = "my_delay_ms"
	if f.queries != want {
		t.Errorf("queries %+v, want %+v", f.queries, want)
	}
}

package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	f, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.policy != "artt" || f.interval != 30*time.Second || !f.leaderElect || f.dryRun {
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
	} {
		if _, err := parseFlags(c.args); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("parseFlags(%v) error %v, want %q", c.args, err, c.says)
		}
	}
}

func TestVersionFlagAsksForTheVersion(t *testing.T) {
	if _, err := parseFlags([]string{"--version"}); !errors.Is(err, errVersion) {
		t.Errorf("--version: %v, want errVersion", err)
	}
}

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
	if f.grpcAddress != ":6000" || f.cacheTTL != 5*time.Second || f.tlsCert != "" {
		t.Errorf("defaults %+v", f)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--tls-cert-file=a.crt"}, "go together"},
		{[]string{"--tls-client-ca-file=ca.crt"}, "needs --tls-cert-file"},
		{[]string{"--cache-ttl=0s"}, "--cache-ttl = 0s"},
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

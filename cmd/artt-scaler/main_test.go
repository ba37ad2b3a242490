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
	if f.grpcAddress != ":6000" || f.cacheTTL != 5*time.Second || f.tlsCert != "" || !f.reuseRanges || f.rangeSettle != time.Minute {
		t.Errorf("defaults %+v", f)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--tls-cert-file=a.crt"}, "go together"},
		{[]string{"--tls-client-ca-file=ca.crt"}, "needs --tls-cert-file"},
		{[]string{"--cache-ttl=0s"}, "--cache-ttl = 0s"},
		{[]string{"--allowed-prometheus=ftp://x"}, `--allowed-prometheus: "ftp://x"`},
		{[]string{"--allowed-prometheus=http://p:9090?x=1"}, "no user, query or fragment"},
		{[]string{"--prometheus-address=prometheus:9090"}, "--prometheus-address"},
		{[]string{"--max-concurrent-polls=0"}, "--max-concurrent-polls = 0"},
		{[]string{"--range-settle=-1s"}, "--range-settle = -1s"},
		{[]string{"--grpc-max-concurrent-streams=-1"}, "--grpc-max-concurrent-streams = -1"},
	} {
		if _, err := parseFlags(c.args); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("parseFlags(%v) error %v, want %q", c.args, err, c.says)
		}
	}
}

func TestTenancyFlags(t *testing.T) {
	f, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.allowQueryOverrides || len(f.allowedPrometheus) != 0 {
		t.Errorf("defaults: overrides %v, allowed %v; want off and only --prometheus-address", f.allowQueryOverrides, f.allowedPrometheus)
	}
	f, err = parseFlags([]string{"--allowed-prometheus=http://a:9090, https://b:443/tenant", "--allowed-prometheus=http://c:1", "--allow-query-overrides"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://a:9090", "https://b:443/tenant", "http://c:1"}; strings.Join(f.allowedPrometheus, " ") != strings.Join(want, " ") || !f.allowQueryOverrides {
		t.Errorf("allowed %v overrides %v, want %v and on", f.allowedPrometheus, f.allowQueryOverrides, want)
	}
}

// Every bad flag is reported at once.
func TestEveryFlagProblemAtOnce(t *testing.T) {
	_, err := parseFlags([]string{"--allowed-prometheus=ftp://x", "--tls-cert-file=a.crt", "--cache-ttl=0s"})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`--allowed-prometheus: "ftp://x"`, "go together", "--cache-ttl = 0s"} {
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

package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// artt-scaler check names every bad flag at once, and reads its list flag
// as artt-scaler does.
func TestCheckFlags(t *testing.T) {
	_, err := parseCheckFlags([]string{"--timeout=0s"}, io.Discard)
	if err == nil {
		t.Fatal("no namespace, no name and a zero timeout were accepted")
	}
	for _, want := range []string{"--namespace is required", "--scaledobject is required", "--timeout = 0s: must be positive"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	f, err := parseCheckFlags([]string{"--namespace=shop", "--scaledobject=web", "--allowed-prometheus=http://a:9090, http://b:9090", "--allowed-prometheus=http://c:9090"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://a:9090", "http://b:9090", "http://c:9090"}; !slices.Equal(f.allowedPrometheus, want) {
		t.Errorf("allowed Prometheus %q, want %q", f.allowedPrometheus, want)
	}
}

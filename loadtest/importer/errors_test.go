package importer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"

	"github.com/artt-dev/artt/internal/httplimit"
)

func TestImportNamesWhatIsMissing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		parts     parts
		namespace string
		want      []string
	}{
		{"no kube-state-metrics", parts{istio: true, probes: true}, namespace, []string{"kube-state-metrics", "kube_pod_info", "install"}},
		{"no Istio telemetry", parts{ksm: true, probes: true}, namespace, []string{"Istio", "istio_requests_total", "install Istio"}},
		{"a namespace with no pods", parts{ksm: true, istio: true}, "empty", []string{`namespace "empty" has no pods`}},
		{"no node probes", parts{ksm: true, istio: true}, namespace, []string{"node-to-node delays", "probe_duration_seconds", "--default-delay"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, _, until := synthetic(t, tc.parts)
			o := importOptions(until)
			o.Namespace = tc.namespace
			res, err := Import(context.Background(), api, o)
			if err == nil {
				t.Fatalf("imported without error:\n%s", res.Scenario)
			}
			t.Logf("error: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if tc.name != "no node probes" {
				return
			}
			// With --default-delay the same Prometheus imports, the delay
			// marked as estimated.
			o.DefaultDelayMs = 0.5
			res, err = Import(context.Background(), api, o)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res.Scenario), "defaultMs: 0.5  # estimated: no node probes") {
				t.Errorf("scenario without probes:\n%s", res.Scenario)
			}
		})
	}
}

func TestImportOptionsAreChecked(t *testing.T) {
	_, err := Import(context.Background(), nil, Options{Since: time.Hour, Step: 5 * time.Second, DefaultDelayMs: -1})
	for _, w := range []string{"--namespace is required", "--step = 5s"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %q", err, w)
		}
	}
	_, err = Import(context.Background(), nil, Options{Namespace: "x", Since: 5 * time.Minute, Step: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "--since = 5m0s") {
		t.Errorf("a period of 5 steps: error %v", err)
	}
}

// An answer larger than the bound stops the import at the query that asked
// for it, before the whole answer is held.
func TestImportRefusesAnAnswerPastTheBound(t *testing.T) {
	const limit = 300
	promAPI, _, until := syntheticThrough(t, parts{ksm: true, istio: true, probes: true}, httplimit.LimitResponses(api.DefaultRoundTripper, limit))
	_, err := Import(context.Background(), promAPI, importOptions(until))
	var tooLarge *httplimit.ResponseTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != limit {
		t.Fatalf("import through a %d-byte bound: %v", limit, err)
	}
	if !strings.Contains(err.Error(), "query ") || !strings.Contains(err.Error(), "--max-response-bytes") {
		t.Errorf("error names neither the query nor the flag: %v", err)
	}
}

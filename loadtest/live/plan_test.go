package live

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// Each field outside the live subset is refused by name, before anything
// starts; the shipped live scenarios are accepted.
func TestPlanRefusesWhatTheLiveLoopCannotRun(t *testing.T) {
	base, err := os.ReadFile("testdata/check.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from, to, field string
	}{
		{"a node's failure", "runs:\n", "events: [{at: 1m, type: node-failure, node: n1}]\nruns:\n", "events[0].type"},
		{"a neighbour of part of a thread", "runs:\n", "events: [{at: 1m, type: node-slowdown, node: n1, speed: 0.5}, {at: 1m, type: node-contention, node: n1, cores: 1.5}]\nruns:\n", "events[1].cores"},
		{"two gateways", "ingress: {replicas: 1}", "ingress: {replicas: 2}", "cluster.ingress.replicas"},
		{"autoscaling", "routing: artt}", "routing: artt, autoscaling: hpa-cpu}", "runs.autoscaling"},
		{"a lab-only policy", "routing: artt}", "routing: localization}", "runs.routing"},
		{"a balancer gRPC lacks", "routing: artt}", "routing: peak-ewma}", "runs[0].lbPolicy"},
		{"Envoy's data plane", "dataPlane: grpc", "dataPlane: envoy", "cluster.dataPlane"},
		{"ARTT under weighted round robin", "routing: artt}", "routing: artt, lbPolicy: CLIENT_SIDE_WEIGHTED_ROUND_ROBIN}", "runs[0].lbPolicy"},
		{"outlier detection", "routing: artt}", "routing: artt, lbPolicy: ROUND_ROBIN, outlierDetection: {}}", "runs[0].outlierDetection"},
		{"FCFS workers", "cpuPerRequest: 2ms,", "cpuPerRequest: 2ms, workers: 2,", "application.components.workers"},
		{"no placement", "replicas: 3, placement: [n1, n2, n3]}", "replicas: 3}", "application.components.placement"},
		{"too many cores", "{name: n1, cores: 0.3}", "{name: n1, cores: 1.5}", "cluster.nodes"},
		{"a backfilled past", "timeout: 5s", "timeout: 5s\n  history: {period: 1m, periods: 2}", "workload.history"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(string(base), c.from, c.to, 1)
			if text == string(base) {
				t.Fatalf("the edit %q did not apply", c.from)
			}
			path := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := NewPlan(path, DefaultMaxCores)
			var fe *scenario.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("err = %v, want a field error on %s", err, c.field)
			}
		})
	}
	for _, name := range []string{"testdata/check.yaml", "testdata/slowdowns.yaml", "live-demo", "live-lata-chain", "live-lata-chain-16", "live-step", "live-ramp", "live-nasa", "live-sessions", "live-degradation"} {
		p, err := NewPlan(name, DefaultMaxCores)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(p.Pods) == 0 || len(p.Runs) == 0 {
			t.Errorf("%s: %d pods and %d runs", name, len(p.Pods), len(p.Runs))
		}
	}
}

// A calendar on a trace would read, in the lab, the trace's rows before its
// start as its history, which the live Prometheus does not hold.
func TestPlanRefusesACalendarOnATrace(t *testing.T) {
	base, err := os.ReadFile("../scenarios/live-nasa.yaml")
	if err != nil {
		t.Fatal(err)
	}
	from := "autoscaling: artt}"
	text := strings.Replace(string(base), from, "autoscaling: artt, scalerMetadata: {normalization: calendar, calendarPeriod: 48m, calendarStep: 15s}}", 1)
	if text == string(base) {
		t.Fatalf("the edit %q did not apply", from)
	}
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(path, DefaultMaxCores)
	var fe *scenario.FieldError
	if !errors.As(err, &fe) || fe.Field != "runs.scalerMetadata.normalization" {
		t.Errorf("err = %v, want a field error on runs.scalerMetadata.normalization", err)
	}
}

// The CFS period is the shortest the kernel takes for the amount (quota and
// period at least 1 ms), and period × cores is the quota.
func TestCFSPeriodIsTheShortestTheKernelTakes(t *testing.T) {
	for _, c := range []struct {
		cores         float64
		period, quota int64
	}{
		{2, 1000, 2000},
		{1, 1000, 1000},
		{0.33, 3030, 1000},
		{0.167, 5988, 1000},
		{0.0625, 16000, 1000},
	} {
		if p, q := cfs(c.cores); p != c.period || q != c.quota {
			t.Errorf("cfs(%g) = %d, %d µs; want %d, %d", c.cores, p, q, c.period, c.quota)
		}
	}
}

// An autoscaled component keeps an address per possible pod, none of them
// another pod's.
func TestPlanKeepsAnAddressPerPossiblePod(t *testing.T) {
	p, err := NewPlan("live-step", DefaultMaxCores)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Scaled) != 1 || p.Scaled[0].Component != "backend" || len(p.Scaled[0].Slots) != 9 {
		t.Fatalf("scaled = %+v, want backend with 9 slots (its maxReplicas)", p.Scaled)
	}
	taken := map[int]string{}
	for _, pod := range p.Pods {
		taken[pod.Index] = pod.Name
	}
	for _, slot := range p.Scaled[0].Slots {
		if other, ok := taken[slot]; ok {
			t.Errorf("slot %d is %s's too", slot, other)
		}
		taken[slot] = "a slot"
	}
	if !Autoscaled(p.Runs[0]) {
		t.Errorf("run %s is not scaled by KEDA", p.Runs[0].Label())
	}
}

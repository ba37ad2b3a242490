package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/artt-dev/artt/internal/httplimit"
	"github.com/artt-dev/artt/loadtest/importer"
)

// importScenario writes a scenario from a live cluster's Prometheus.
func importScenario(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	prometheus := fs.String("prometheus", "", "Prometheus HTTP API base URL (required), e.g. http://prometheus-server.monitoring.svc:80")
	namespace := fs.String("namespace", "", "namespace of the application (required)")
	since := fs.Duration("since", 24*time.Hour, "how far back to read")
	until := fs.String("until", "", "end of the period, RFC 3339 (default: now)")
	step := fs.Duration("step", 0, "one row of the workload trace (default: since ÷ 1440, at least 15s)")
	defaultDelay := fs.Duration("default-delay", -1, "one-way node-to-node delay to assume when the node probes are absent (default: the probes are required)")
	out := fs.String("out", "", "scenario file to write (default: <namespace>.yaml); the trace is written beside it")
	timeout := fs.Duration("timeout", 2*time.Minute, "timeout of the whole import")
	maxResponse := fs.Int64("max-response-bytes", importer.DefaultMaxResponseBytes, "largest answer read from Prometheus for one query")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var errs []error
	if *prometheus == "" {
		errs = append(errs, errors.New("--prometheus is required"))
	}
	if *maxResponse < 1 {
		errs = append(errs, fmt.Errorf("--max-response-bytes = %d: must be at least 1", *maxResponse))
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	o := importer.Options{Namespace: *namespace, Since: *since, Step: *step, Source: *prometheus, DefaultDelayMs: -1}
	if *defaultDelay >= 0 {
		o.DefaultDelayMs = float64(*defaultDelay) / float64(time.Millisecond)
	}
	if *until != "" {
		t, err := time.Parse(time.RFC3339, *until)
		if err != nil {
			errs = append(errs, fmt.Errorf("--until = %q: want RFC 3339, such as 2026-11-30T12:00:00Z", *until))
		}
		o.Until = t
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	path := *out
	if path == "" {
		path = *namespace + ".yaml"
	}
	o.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	o.TraceFile = o.Name + "-workload.csv"
	transport := httplimit.LimitResponses(api.DefaultRoundTripper, *maxResponse)
	client, err := api.NewClient(api.Config{Address: *prometheus, RoundTripper: transport})
	if err != nil {
		return fmt.Errorf("--prometheus = %q: %w", *prometheus, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	res, err := importer.Import(ctx, promv1.NewAPI(client), o)
	if err != nil {
		return err
	}
	tracePath := filepath.Join(filepath.Dir(path), o.TraceFile)
	if err := os.WriteFile(tracePath, res.Trace, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(path, res.Scenario, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", path, tracePath)
	if len(res.Estimated) > 0 {
		fmt.Fprintln(stdout, "estimated rather than read (also commented in the file):")
		for _, e := range res.Estimated {
			fmt.Fprintln(stdout, "  -", e)
		}
	}
	fmt.Fprintf(stdout, "run it: artt-lab run %s\n", path)
	return nil
}

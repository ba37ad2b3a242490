package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/artt-dev/artt/internal/problem"
	"github.com/artt-dev/artt/scaler"
	"github.com/artt-dev/artt/scaler/scaledobject"
)

// checkFlags are artt-scaler check's: which ScaledObject, and the settings
// of the artt-scaler it stands for.
type checkFlags struct {
	kubeconfig, namespace, name, prometheus string
	allowedPrometheus                       []string
	allowQueryOverrides                     bool
	timeout                                 time.Duration
}

func parseCheckFlags(args []string, usage io.Writer) (checkFlags, error) {
	var f checkFlags
	fs := flag.NewFlagSet("artt-scaler check", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig to read the ScaledObject with (default: in-cluster, or $KUBECONFIG)")
	fs.StringVar(&f.namespace, "namespace", "", "the ScaledObject's namespace (required)")
	fs.StringVar(&f.name, "scaledobject", "", "the ScaledObject's name (required)")
	fs.StringVar(&f.prometheus, "prometheus-address", "", "artt-scaler's --prometheus-address: the Prometheus of triggers that name none")
	fs.Func("allowed-prometheus", "artt-scaler's --allowed-prometheus (repeat or separate with commas)", appendList(&f.allowedPrometheus))
	fs.BoolVar(&f.allowQueryOverrides, "allow-query-overrides", false, "artt-scaler's --allow-query-overrides")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "how long the whole check may take")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	var problems []error
	if f.namespace == "" {
		problems = append(problems, errors.New("--namespace is required"))
	}
	if f.name == "" {
		problems = append(problems, errors.New("--scaledobject is required"))
	}
	if f.timeout <= 0 {
		problems = append(problems, fmt.Errorf("--timeout = %s: must be positive", f.timeout))
	}
	return f, errors.Join(problems...)
}

// runCheck is `artt-scaler check`: it reads a ScaledObject and checks each
// of its external triggers as artt-scaler would answer KEDA for it,
// printing one line per problem, or what KEDA would be served. It returns
// the exit code: 0 when every trigger evaluates, 1 when one does not, 2 for
// bad flags or an unreadable ScaledObject.
func runCheck(ctx context.Context, args []string, out, errOut io.Writer) int {
	f, err := parseCheckFlags(args, errOut)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(errOut, "artt-scaler check:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		fmt.Fprintln(errOut, "artt-scaler check: kubeconfig:", err)
		return 2
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(errOut, "artt-scaler check:", err)
		return 2
	}
	// A list by name, not a get: the chart's role for --check-scaledobjects
	// grants list and watch only.
	list, err := client.Resource(scaledobject.GVR).Namespace(f.namespace).List(ctx,
		metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", f.name).String()})
	if err == nil && len(list.Items) == 0 {
		err = errors.New("not found")
	}
	if err != nil {
		fmt.Fprintf(errOut, "artt-scaler check: scaledobject %s/%s: %v\n", f.namespace, f.name, err)
		return 2
	}
	so := &list.Items[0]
	source := scaler.NewPrometheusSource(nil)
	defer source.CloseIdleConnections()
	problems, evaluated := scaler.CheckScaledObject(ctx, scaledobject.Read(so), scaler.CheckOptions{
		Source: source, DefaultPrometheus: f.prometheus, Now: time.Now(),
		Tenancy: scaler.Tenancy{AllowedPrometheus: f.allowedPrometheus, AllowQueryOverrides: f.allowQueryOverrides},
	})
	for _, line := range evaluated {
		fmt.Fprintln(out, "ok: "+line)
	}
	if problem.Print(out, problems, fmt.Sprintf("artt-scaler answers KEDA for scaledobject %s/%s", f.namespace, f.name)) {
		return 1
	}
	return 0
}

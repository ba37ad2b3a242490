// Command artt-scheduler is kube-scheduler with ARTT's placement plugin
// (package larpplugin) compiled in, run as a second scheduler: Deployments
// opt in with spec.template.spec.schedulerName: artt-scheduler, and the
// profile in deploy/scheduler enables the plugin. Every flag is
// kube-scheduler's own.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/artt-dev/artt/scheduler/larpplugin"
)

func main() {
	command := app.NewSchedulerCommand(app.WithPlugin(larpplugin.Name, larpplugin.New))
	os.Exit(cli.Run(command))
}

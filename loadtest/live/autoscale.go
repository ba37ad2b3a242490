package live

import (
	"context"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/artt-dev/artt/internal/testcluster"
	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/scaler/metric"
)

// startAutoscaling starts KEDA's operator and metrics adapter, and
// artt-scaler built from this checkout and run with its default flags but
// the addresses, asking the cluster's Prometheus, and logging each
// evaluation (its utilisation, threshold and value) for the run's record.
func (c *Cluster) startAutoscaling(ctx context.Context, a Assets) error {
	stopKEDA, err := testcluster.StartKEDA(ctx, c.Dir, a.E2E, c.Kubeconfig, c.Client)
	c.stops = append(c.stops, stopKEDA)
	if err != nil {
		return fmt.Errorf("keda: %w", err)
	}
	bin, err := testcluster.Build(c.Dir, "artt-scaler")
	if err != nil {
		return err
	}
	c.ScalerAddress = testcluster.FreeAddress()
	stop, err := testcluster.StartProcess(ctx, c.Dir, "artt-scaler", bin, nil, "--grpc-address="+c.ScalerAddress,
		"--http-address="+testcluster.FreeAddress(), "--prometheus-address="+c.Prom.URL, "--log-level=debug")
	c.stops = append(c.stops, stop)
	return err
}

// createScaledObject makes KEDA scale a component of run r on artt-scaler,
// as the lab's artt autoscaler does: the same trigger metadata
// (Scenario.TriggerMetadata), KEDA's polling at the scenario's interval,
// its min and max replicas, and the HPA's behaviour (the scale-up
// policies per sync, scale-down stabilisation) from the scenario. A pods
// form trigger is an AverageValue metric, the normalized one a Value.
func createScaledObject(ctx context.Context, c *Cluster, sc *scenario.Scenario, r scenario.Run, ns string, comp scenario.Component) error {
	name := backend.ObjectName(comp.Name)
	md := sc.TriggerMetadata(r, name, c.Prom.URL)
	md["scalerAddress"], md["mode"] = c.ScalerAddress, "artt"
	spec, err := metric.ParseSettings(md)
	if err != nil {
		return fmt.Errorf("component %s: %w", comp.Name, err)
	}
	metricType := "Value"
	if spec.Form == metric.FormPods {
		metricType = "AverageValue"
	}
	ctl := sc.Control
	sync := int64(ctl.HPASyncPeriod.Seconds())
	behavior := autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr(int32(0)), SelectPolicy: ptr(autoscalingv2.MaxChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PercentScalingPolicy, Value: int32(ctl.HPAScaleUpPercent), PeriodSeconds: int32(sync)},
				{Type: autoscalingv2.PodsScalingPolicy, Value: int32(ctl.HPAScaleUpPods), PeriodSeconds: int32(sync)},
			}},
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr(int32(ctl.ScaleDownWindow.Seconds()))},
	}
	behaviorMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&behavior)
	if err != nil {
		return err
	}
	metadata := map[string]any{}
	for k, v := range md {
		metadata[k] = v
	}
	so := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "keda.sh/v1alpha1",
		"kind":       "ScaledObject",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"scaleTargetRef":  map[string]any{"name": name},
			"minReplicaCount": int64(comp.MinReplicas),
			"maxReplicaCount": int64(comp.MaxReplicas),
			"pollingInterval": int64(ctl.PollingInterval.Seconds()),
			"advanced":        map[string]any{"horizontalPodAutoscalerConfig": map[string]any{"behavior": behaviorMap}},
			"triggers":        []any{map[string]any{"type": "external", "metricType": metricType, "metadata": metadata}},
		},
	}}
	if err := c.Client.Create(ctx, so); err != nil {
		return fmt.Errorf("scaled object %s/%s: %w", ns, name, err)
	}
	return nil
}

// waitHPA waits until KEDA has made the HPA of a ScaledObject and the HPA
// has read its metric once.
func waitHPA(ctx context.Context, c *Cluster, ns, name string) error {
	deadline := time.Now().Add(90 * time.Second)
	for {
		var hpa autoscalingv2.HorizontalPodAutoscaler
		err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: kedaHPAName(name)}, &hpa)
		if err == nil && len(hpa.Status.CurrentMetrics) > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s/keda-hpa-%s has read no metric within 90s (keda-operator.log, keda-adapter.log, artt-scaler.log, kube-controller-manager.log): %v", ns, name, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// kedaHPAName is the HPA KEDA makes for the ScaledObject of a workload.
func kedaHPAName(workload string) string { return "keda-hpa-" + workload }

func ptr[T any](v T) *T { return &v }

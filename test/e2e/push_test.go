package e2e_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// pushForm switches the ScaledObject to an external-push trigger in the
// utilization form: the HPA's target is θ itself, and artt-scaler pushes a
// new metric spec through StreamMetricSpec whenever θ moves, which KEDA
// writes into the HPA. A short window and step make θ move within seconds
// when demand starts to climb.
func pushForm(t *testing.T) {
	doc := `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: web
  namespace: shop
spec:
  scaleTargetRef:
    name: web
  minReplicaCount: 1
  maxReplicaCount: 20
  triggers:
    - type: external-push
      metricType: Value
      metadata:
        scalerAddress: ` + scalerGRPC + `
        prometheusAddress: ` + prom.URL + `
        workload: web
        metricForm: utilization
        window: "10"
        history: "5"
        step: 1s
        rateWindow: 5s
`
	path := filepath.Join(work, "scaledobject-push.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, "apply", "-f", path)
	target := func() float64 {
		hpa := &unstructured.Unstructured{}
		hpa.SetAPIVersion("autoscaling/v2")
		hpa.SetKind("HorizontalPodAutoscaler")
		if err := k8s.Get(testScope, types.NamespacedName{Namespace: "shop", Name: "keda-hpa-web"}, hpa); err != nil {
			return math.NaN()
		}
		metrics, _, _ := unstructured.NestedSlice(hpa.Object, "spec", "metrics")
		for _, m := range metrics {
			mm, _ := m.(map[string]any)
			name, _, _ := unstructured.NestedString(mm, "external", "metric", "name")
			value, _, _ := unstructured.NestedString(mm, "external", "target", "value")
			if name == "s0-artt-cpu-utilization" {
				return quantity(value)
			}
		}
		return math.NaN()
	}
	// Flat demand: θ rests at the maximum, 80.
	waitFor(t, 90*time.Second, "the HPA targeting artt-cpu-utilization at θ", func() bool {
		return math.Abs(target()-threshold(t)) < 0.01 && target() > 79
	})
	before := target()
	// Demand starts to climb steeply: θ falls, and the HPA's target follows
	// without the ScaledObject changing.
	start := time.Now()
	app.SetDemand(func(now time.Time) float64 { return 100 + 30*now.Sub(start).Seconds() })
	defer app.SetDemand(func(time.Time) float64 { return 100 })
	took := waitFor(t, 90*time.Second, "the HPA target moving with θ", func() bool {
		got := target()
		return got < before-5 && math.Abs(got-threshold(t)) < 2
	})
	t.Logf("HPA target %.1f → %.1f (θ now %.1f), %s after demand started to climb", before, target(), threshold(t), took)
}

// quantity reads a Kubernetes quantity such as "80" or "63250m".
func quantity(s string) float64 {
	if s == "" {
		return math.NaN()
	}
	scale := 1.0
	if s[len(s)-1] == 'm' {
		s, scale = s[:len(s)-1], 0.001
	}
	var v float64
	for _, c := range s {
		if c < '0' || c > '9' {
			return math.NaN()
		}
		v = 10*v + float64(c-'0')
	}
	return v * scale
}

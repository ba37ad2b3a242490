package e2e_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/artt-dev/artt/test/e2e"
	"github.com/artt-dev/artt/traffic/istio"
)

// destinations reads artt-traffic's DestinationRule for web: its
// distribute entries, and the localities they send traffic to.
func destinations(t *testing.T) ([]istio.Distribute, []string) {
	t.Helper()
	dr := &unstructured.Unstructured{}
	dr.SetAPIVersion("networking.istio.io/v1")
	dr.SetKind("DestinationRule")
	if err := k8s.Get(testScope, types.NamespacedName{Namespace: "shop", Name: "artt-web"}, dr); err != nil {
		return nil, nil
	}
	entries, _, _ := unstructured.NestedSlice(dr.Object, "spec", "trafficPolicy", "loadBalancer", "localityLbSetting", "distribute")
	var ds []istio.Distribute
	to := map[string]bool{}
	for _, e := range entries {
		m, _ := e.(map[string]any)
		d := istio.Distribute{To: map[string]uint32{}}
		d.From, _ = m["from"].(string)
		weights, _ := m["to"].(map[string]any)
		for loc, w := range weights {
			n, _ := w.(int64)
			d.To[loc] = uint32(n)
			to[loc] = true
		}
		ds = append(ds, d)
	}
	return ds, slices.Sorted(maps.Keys(to))
}

// ruleFollowsPods waits until the DestinationRule sends web's traffic to
// exactly the nodes its ready pods run on, and checks it against istiod's
// rules.
func ruleFollowsPods(t *testing.T, timeout time.Duration) {
	t.Helper()
	var want []string
	took := waitFor(t, timeout, "artt-traffic's rule following web's pods", func() bool {
		pods, err := app.ReadyPodsOf(testScope, "web")
		if err != nil {
			return false
		}
		set := map[string]bool{}
		for _, p := range pods {
			set[e2e.Locality(p.Spec.NodeName)] = true
		}
		want = slices.Sorted(maps.Keys(set))
		_, got := destinations(t)
		return slices.Equal(got, want)
	})
	ds, _ := destinations(t)
	if err := istio.Validate(ds); err != nil {
		t.Errorf("written rule breaks Istio's rules: %v", err)
	}
	t.Logf("DestinationRule artt-web sends to %s (%s after the pods settled)", strings.Join(want, ", "), took)
}

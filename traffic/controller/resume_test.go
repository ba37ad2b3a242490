package controller

import (
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/artt-dev/artt/traffic"
)

// sizedState is a Resumer whose state is a JSON string of n bytes.
type sizedState struct{ n int }

func (sizedState) Name() string { return "sized" }
func (sizedState) Allocate(traffic.Snapshot) (traffic.Allocation, error) {
	return traffic.Allocation{}, nil
}
func (s sizedState) State(string) ([]byte, bool) {
	b, _ := json.Marshal(strings.Repeat("x", s.n))
	return b, true
}
func (sizedState) Resume(time.Time, map[string][]byte) map[string]error { return nil }

// A state that fits goes into the annotation whole, readable back; one
// past the bound is left out, so the rule's weights are still written.
func TestStateAnnotationIsBounded(t *testing.T) {
	c := &Controller{opts: Options{Policy: "sized"}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	c.policy = sizedState{1000}
	v := c.stateOf("shop/web")
	var s savedState
	if err := json.Unmarshal([]byte(v), &s); err != nil || s.Component != "shop/web" || s.Policy != "sized" || len(s.State) != 1002 {
		t.Errorf("a 1 kB state: annotation %.60q… read back as %+v (%v)", v, s.Component, err)
	}
	c.policy = sizedState{maxStateBytes}
	if v := c.stateOf("shop/web"); v != "" {
		t.Errorf("a state past %d bytes was annotated (%d bytes)", maxStateBytes, len(v))
	}
}

// What was written is remembered only for the rules still routed: a
// component gone leaves the map, and is written again if it returns.
func TestWriterForgetsRulesNoLongerRouted(t *testing.T) {
	w := &writer{applied: map[string]string{"shop/artt-web": "a", "gone/artt-web": "b"}}
	w.keepOnly(map[string]bool{"shop/artt-web": true})
	if len(w.applied) != 1 || w.lastApplied("shop/artt-web") != "a" || w.lastApplied("gone/artt-web") != "" {
		t.Errorf("after keepOnly: %v, want only shop/artt-web", w.applied)
	}
}

// A state is resumed only from the rule ARTT writes for the component it
// names: its own rule, labelled as its own, or the user's rule for the
// component's host in the component's namespace. A rule in another
// namespace, for another host, naming no managed Deployment, or posing as
// ARTT's own without its label is refused by name.
func TestResumedStateOnlyFromTheComponentsOwnRule(t *testing.T) {
	deployments := []appsv1.Deployment{
		{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "victim"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "victim"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "cart", Namespace: "shop"}},
	}
	annotated := func(ns, name, host, component string, own bool) *networkingv1.DestinationRule {
		r := &networkingv1.DestinationRule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Annotations: map[string]string{StateAnnotation: `{"component":"` + component + `","policy":"artt","state":{}}`}}}
		r.Spec.Host = host
		if own {
			r.Labels = map[string]string{ManagedByLabel: FieldManager}
		}
		return r
	}
	rules := []*networkingv1.DestinationRule{
		annotated("victim", "artt-web", "web.victim.svc.cluster.local", "victim/web", true),
		annotated("shop", "cart", "cart", "shop/cart", false),
		annotated("tenant-a", "steal", "web.victim.svc.cluster.local", "victim/web", false),
		annotated("victim", "other", "api", "victim/web", false),
		annotated("victim", "ghost", "ghost", "victim/ghost", false),
		annotated("victim", "artt-api", "api.victim.svc.cluster.local", "victim/api", false),
	}
	states, refused := savedStates(rules, componentsOf(deployments), "artt")
	if len(states) != 2 || states["victim/web"] == nil || states["shop/cart"] == nil {
		t.Errorf("resumed %v; want victim/web and shop/cart", slices.Collect(maps.Keys(states)))
	}
	for _, rule := range []string{"tenant-a/steal", "victim/other", "victim/ghost", "victim/artt-api"} {
		if refused[rule] == nil {
			t.Errorf("%s's state was not refused", rule)
		}
	}
	if len(refused) != 4 {
		t.Errorf("refused %v; want the four rules above", refused)
	}
}

package controller

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

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

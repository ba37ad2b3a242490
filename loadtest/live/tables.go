package live

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"
	"time"

	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/artt-dev/artt/loadtest/live/backend"
	"github.com/artt-dev/artt/loadtest/outcome"
	"github.com/artt-dev/artt/loadtest/scenario"
	"github.com/artt-dev/artt/traffic/controller"
)

// tableLog records every routing table a run's DestinationRules put in
// force, as the watch delivers them, so the lab can be given the tables
// the live run really had (emulator.Options.Replay). Only the watch's
// goroutine writes it; finish reads it once that goroutine has ended.
type tableLog struct {
	changes []timedTable
	last    map[string]map[string]map[string]uint32 // per component
	stop    func()
	done    chan error
}

type timedTable struct {
	at        time.Time
	component string
	rows      map[string]map[string]uint32 // by node name; nil: no table
}

// recordTables watches the namespace's DestinationRules until stopped.
func recordTables(ctx context.Context, c *Cluster, ns string, components []scenario.Component) (*tableLog, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := c.Istio.NetworkingV1().DestinationRules(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watching %s's DestinationRules: %w", ns, err)
	}
	byRule := map[string]string{}
	for _, comp := range components {
		name := backend.ObjectName(comp.Name)
		byRule[name], byRule[controller.RuleName(name)] = comp.Name, comp.Name
	}
	l := &tableLog{last: map[string]map[string]map[string]uint32{}, stop: cancel, done: make(chan error, 1)}
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				l.done <- nil
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					l.done <- fmt.Errorf("the watch of %s's DestinationRules ended before the run", ns)
					return
				}
				l.observe(ev, byRule)
			}
		}
	}()
	return l, nil
}

// observe records a rule's table when it differs from the component's
// last one; a deleted rule lifts it.
func (l *tableLog) observe(ev watch.Event, byRule map[string]string) {
	dr, ok := ev.Object.(*networkingv1.DestinationRule)
	if !ok {
		return
	}
	comp, ok := byRule[dr.Name]
	if !ok {
		return
	}
	var rows map[string]map[string]uint32
	if ev.Type != watch.Deleted {
		rows = rowsOf(dr).ByNode()
	}
	if prev, seen := l.last[comp]; seen && maps.EqualFunc(prev, rows, maps.Equal) {
		return
	}
	l.last[comp] = rows
	l.changes = append(l.changes, timedTable{at: time.Now(), component: comp, rows: rows})
}

// NodeOfLocality is the node of a locality (Locality's inverse); a
// locality of another form is kept whole, for the lab to refuse by name.
func NodeOfLocality(loc string) string { return strings.TrimPrefix(loc, locality("")) }

// finish stops the watch and returns the tables with their times since
// the load started, writing them to path as JSON lines.
func (l *tableLog) finish(started time.Time, path string) ([]outcome.TableChange, error) {
	l.stop()
	if err := <-l.done; err != nil {
		return nil, err
	}
	out := make([]outcome.TableChange, 0, len(l.changes))
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, ch := range l.changes {
		tc := outcome.TableChange{AtS: ch.at.Sub(started).Seconds(), Component: ch.component, Rows: ch.rows}
		out = append(out, tc)
		if err := enc.Encode(tc); err != nil {
			return nil, err
		}
	}
	return out, os.WriteFile(path, []byte(b.String()), 0o644)
}

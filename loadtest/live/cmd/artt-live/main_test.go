package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/artt-dev/artt/loadtest/emulator"
	"github.com/artt-dev/artt/loadtest/live"
)

// Each autoscaled run's phases and idle time are written beside its logs,
// as artt-lab --phases reads them; a run KEDA did not scale has no file.
func TestClocksAreWrittenBesideTheLogs(t *testing.T) {
	dir := t.TempDir()
	ph := emulator.ScrapePhases{Wall: 1231.4, FirstPoll: 14.3, Slots: map[string][]float64{"backend": {2.8, 0.5}}}
	cs := []live.Comparison{{Phases: &ph, PodsIdle: 35}, {}}
	ms := []*live.Measured{{Namespace: "live-0"}, {Namespace: "live-1"}}
	if err := writeClocks(dir, cs, ms); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "live-0-phases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got emulator.RunClock
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if want := (emulator.RunClock{Phases: ph, PodsIdle: 35}); !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "live-1-phases.json")); !os.IsNotExist(err) {
		t.Errorf("a run KEDA did not scale has a phases file (%v)", err)
	}
}

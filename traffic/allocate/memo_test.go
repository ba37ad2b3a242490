package allocate

import (
	"reflect"
	"slices"
	"testing"

	"github.com/artt-dev/artt/traffic"
)

// After a pod leaves one component, a reallocation with the same
// measurements solves again only that component and the one it calls
// (whose supplies moved); every other component's route is recalled, and
// is exactly what a fresh allocator computes for the new snapshot.
func TestMemoResolvesOnlyWhatAnEventTouched(t *testing.T) {
	s := chainClusterSpan(3, 40, 8, 20, 10)
	s.MeasuredAt = s.At // the event reuses the cycle's measurements
	for _, name := range []string{"heart", "artt"} {
		t.Run(name, func(t *testing.T) {
			p := mustPolicy(t, name, DefaultOptions())
			if _, err := p.Allocate(s); err != nil {
				t.Fatal(err)
			}
			memo := memoOf(p)
			solvedFirst := memo.solved

			// c3 loses a pod: c3's groups change, and c4's supplies (c3's nodes).
			event := s
			event.Replicas = slices.DeleteFunc(slices.Clone(s.Replicas), func(r traffic.Replica) bool { return r.Name == "c3-0" })
			got, err := p.Allocate(event)
			if err != nil {
				t.Fatal(err)
			}
			if solved := memo.solved - solvedFirst; solved != 2 {
				t.Errorf("the event solved %d components again, want 2 (c3 and c4)", solved)
			}
			if memo.reused != 5 {
				t.Errorf("%d components recalled, want the 5 untouched", memo.reused)
			}
			fresh := mustPolicy(t, name, DefaultOptions())
			if _, err := fresh.Allocate(s); err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Allocate(event)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Routes, want.Routes) {
				t.Errorf("routes recalled from memory differ from a fresh allocation")
			}
		})
	}
}

func memoOf(p traffic.Policy) *solutionMemo {
	switch p := p.(type) {
	case *HEART:
		return p.memo
	case *ARTT:
		return p.memo
	}
	return nil
}

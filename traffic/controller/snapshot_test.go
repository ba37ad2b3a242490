package controller

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSnapshotListsDelaysInNodeOrder checks the snapshot's delays: every
// measured pair between listed nodes, by source then target in the nodes'
// name order, whatever order the cache listed the nodes in, and none to
// or from a node the cache does not list.
func TestSnapshotListsDelaysInNodeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 8))
	var nodes []corev1.Node
	for _, i := range rng.Perm(12) {
		nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%02d", i)}})
	}
	m := &Measurements{DelayMs: map[[2]string]float64{}}
	var want []string
	for a := range 12 {
		for b := range 12 {
			if a != b && rng.IntN(3) == 0 {
				from, to := fmt.Sprintf("n%02d", a), fmt.Sprintf("n%02d", b)
				m.DelayMs[[2]string{from, to}] = float64(a*100 + b)
				want = append(want, from+"→"+to)
			}
		}
	}
	m.DelayMs[[2]string{"n03", "gone"}] = 1
	m.DelayMs[[2]string{"gone", "n03"}] = 1
	s, _ := snapshot(apiState{nodes: nodes}, m, time.Unix(0, 0))
	var got []string
	for _, d := range s.Delays {
		got = append(got, d.From+"→"+d.To)
		if want := m.DelayMs[[2]string{d.From, d.To}]; d.Ms != want {
			t.Errorf("%s → %s = %v ms, measured %v", d.From, d.To, d.Ms, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("delays listed %v, want %v", got, want)
	}
}

func TestNodeCPUIsAllocatableOrCapacity(t *testing.T) {
	cpu := func(v string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}
	}
	cases := []struct {
		name string
		st   corev1.NodeStatus
		want float64
	}{
		{"allocatable", corev1.NodeStatus{Allocatable: cpu("3500m"), Capacity: cpu("4")}, 3.5},
		{"capacity where no allocatable is reported", corev1.NodeStatus{Capacity: cpu("4")}, 4},
		{"neither: unknown", corev1.NodeStatus{}, 0},
	}
	for _, c := range cases {
		if got := nodeCPU(corev1.Node{Status: c.st}); got != c.want {
			t.Errorf("%s: %v cores, want %v", c.name, got, c.want)
		}
	}
}

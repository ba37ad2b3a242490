package heap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct{ key, seq int }

// Elements leave in order, ties in the order a stable sort gives when the
// order breaks them (here by seq), however pushes and pops interleave.
func TestPopsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := New(func(a, b *item) bool { return a.key < b.key || a.key == b.key && a.seq < b.seq })
	var pending, popped []item
	for seq := range 5000 {
		x := item{r.IntN(50), seq}
		h.Push(x)
		pending = append(pending, x)
		if r.IntN(3) == 0 {
			min := *h.Min()
			got := h.Pop()
			if got != min {
				t.Fatalf("Pop = %v, Min said %v", got, min)
			}
			i := slices.IndexFunc(pending, func(p item) bool { return p == got })
			for _, p := range pending {
				if p.key < got.key || p.key == got.key && p.seq < got.seq {
					t.Fatalf("popped %v while %v was waiting", got, p)
				}
			}
			pending = slices.Delete(pending, i, i+1)
			popped = append(popped, got)
		}
	}
	drained := len(popped)
	for h.Len() > 0 {
		popped = append(popped, h.Pop())
	}
	for i := drained + 1; i < len(popped); i++ {
		if a, b := popped[i-1], popped[i]; b.key < a.key || b.key == a.key && b.seq < a.seq {
			t.Fatalf("drained %v after %v", b, a)
		}
	}
	if len(popped) != 5000 {
		t.Fatalf("%d elements came out of 5000", len(popped))
	}
}

func TestResetEmptiesAndKeepsWorking(t *testing.T) {
	h := New(func(a, b *int) bool { return *a < *b })
	for _, x := range []int{5, 3, 9} {
		h.Push(x)
	}
	h.Reset()
	if h.Len() != 0 {
		t.Fatalf("Len after Reset = %d", h.Len())
	}
	h.Push(7)
	h.Push(2)
	if got := h.Pop(); got != 2 {
		t.Errorf("Pop after Reset = %d, want 2", got)
	}
}

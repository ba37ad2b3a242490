// Package heap is a binary min-heap of any element type, ordered by a less
// function over pointers to the elements (so large elements are compared in
// place). It is the one home of the heaps the lab's emulator and the tests'
// oracles keep: Push and Pop sift as container/heap does, so elements equal
// under less leave in the same order as there.
package heap

// Heap is a min-heap; the zero value is unusable, make one with New.
type Heap[T any] struct {
	items []T
	less  func(a, b *T) bool
}

// New is an empty heap ordered by less.
func New[T any](less func(a, b *T) bool) Heap[T] { return Heap[T]{less: less} }

// Len is the number of elements.
func (h *Heap[T]) Len() int { return len(h.items) }

// Reset empties the heap, keeping its storage for the next pushes.
func (h *Heap[T]) Reset() {
	clear(h.items)
	h.items = h.items[:0]
}

// Min is the least element; the heap must not be empty.
func (h *Heap[T]) Min() *T { return &h.items[0] }

// Push adds x.
func (h *Heap[T]) Push(x T) {
	h.items = append(h.items, x)
	s := h.items
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(&s[i], &s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// Pop removes and returns the least element; the heap must not be empty.
// The slot it vacates is zeroed, so the heap holds no pointer it gave back.
func (h *Heap[T]) Pop() T {
	s := h.items
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	var zero T
	s[last] = zero
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && h.less(&s[l], &s[m]) {
			m = l
		}
		if r < len(s) && h.less(&s[r], &s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	h.items = s
	return top
}

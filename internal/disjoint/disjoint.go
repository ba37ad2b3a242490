// Package disjoint is a union–find over comparable keys: which items end up
// linked, directly or through others. The importer uses it for nodes linked
// by a shared component, LARP for components linked by calls.
package disjoint

// Sets holds the partition; the zero value is empty and ready.
type Sets[T comparable] struct{ parent map[T]T }

// Add makes x a set of its own if it is new.
func (s *Sets[T]) Add(x T) {
	if s.parent == nil {
		s.parent = map[T]T{}
	}
	if _, ok := s.parent[x]; !ok {
		s.parent[x] = x
	}
}

// Find returns x's set's representative, adding x if new.
func (s *Sets[T]) Find(x T) T {
	s.Add(x)
	for s.parent[x] != x {
		s.parent[x] = s.parent[s.parent[x]] // path halving
		x = s.parent[x]
	}
	return x
}

// Union merges the sets of a and b.
func (s *Sets[T]) Union(a, b T) { s.parent[s.Find(a)] = s.Find(b) }

// Groups returns the sets, each as the list of its members (in no
// particular order; callers sort).
func (s *Sets[T]) Groups() [][]T {
	byRoot := map[T][]T{}
	for x := range s.parent {
		r := s.Find(x)
		byRoot[r] = append(byRoot[r], x)
	}
	out := make([][]T, 0, len(byRoot))
	for _, g := range byRoot {
		out = append(out, g)
	}
	return out
}

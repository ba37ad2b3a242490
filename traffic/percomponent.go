package traffic

// PerComponent keeps one piece of state per component (an estimator, a
// health tracker), created on first use. Get it for every component from one
// goroutine before fanning out; each component's state may then be used in
// parallel, since components never share state.
type PerComponent[T any] struct {
	create func() T
	byName map[string]T
}

// NewPerComponent returns an empty set whose entries create makes.
func NewPerComponent[T any](create func() T) *PerComponent[T] {
	return &PerComponent[T]{create: create, byName: make(map[string]T)}
}

// Get returns the component's state, creating it the first time.
func (p *PerComponent[T]) Get(component string) T {
	s, ok := p.byName[component]
	if !ok {
		s = p.create()
		p.byName[component] = s
	}
	return s
}

// Lookup returns the component's state without creating it.
func (p *PerComponent[T]) Lookup(component string) (T, bool) {
	s, ok := p.byName[component]
	return s, ok
}

// Set replaces the component's state.
func (p *PerComponent[T]) Set(component string, s T) { p.byName[component] = s }

// Forget drops the components gone reports true for.
func (p *PerComponent[T]) Forget(gone func(component string) bool) {
	for name := range p.byName {
		if gone(name) {
			delete(p.byName, name)
		}
	}
}

// Each calls f for every component's state.
func (p *PerComponent[T]) Each(f func(component string, s T)) {
	for name, s := range p.byName {
		f(name, s)
	}
}

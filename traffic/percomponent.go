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

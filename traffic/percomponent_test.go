package traffic

import "testing"

func TestPerComponentCreatesOncePerName(t *testing.T) {
	made := 0
	p := NewPerComponent(func() *int { made++; v := made; return &v })
	a, b, a2 := p.Get("a"), p.Get("b"), p.Get("a")
	if a != a2 || a == b || made != 2 || *a != 1 || *b != 2 {
		t.Errorf("a=%v b=%v a again=%v after %d creations; want one state per component", *a, *b, *a2, made)
	}
}

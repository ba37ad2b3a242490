package disjoint

import (
	"slices"
	"testing"
)

func TestUnionFind(t *testing.T) {
	var s Sets[string]
	s.Union("a", "b")
	s.Union("c", "d")
	s.Union("b", "d")
	s.Add("e")
	if s.Find("a") != s.Find("c") || s.Find("a") == s.Find("e") {
		t.Errorf("a, c linked through b–d: %v, %v; e alone: %v", s.Find("a"), s.Find("c"), s.Find("e"))
	}
	groups := s.Groups()
	sizes := []int{}
	for _, g := range groups {
		sizes = append(sizes, len(g))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{1, 4}) {
		t.Errorf("group sizes %v, want [1 4]", sizes)
	}
}

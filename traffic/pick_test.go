package traffic

import (
	"errors"
	"testing"
)

// Istio's simple policies map to the two picks the handover prices, and a
// snapshot naming any other pick is refused by field and value.
func TestPickOfIstiosPolicies(t *testing.T) {
	for simple, want := range map[string]Pick{
		"ROUND_ROBIN": PickBlind, "RANDOM": PickBlind,
		"LEAST_REQUEST": PickByQueue, "LEAST_CONN": PickByQueue, "UNSPECIFIED": PickByQueue, "": PickByQueue,
	} {
		if got := PickOf(simple); got != want {
			t.Errorf("PickOf(%q) = %q, want %q", simple, got, want)
		}
	}
	s := Snapshot{Components: []Component{{Name: "a"}, {Name: "b", Pick: "fastest"}}}
	var fe *FieldError
	if err := s.Validate(); !errors.As(err, &fe) || fe.Field != "components[1].pick" || fe.Value != "fastest" {
		t.Errorf("a snapshot picking %q: %v; want a field error on components[1].pick", "fastest", err)
	}
}

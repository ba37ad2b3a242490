package metric

import (
	"errors"
	"testing"
)

// KEDA passes a trigger's whole metadata to the scaler, its own keys
// included: each is accepted, and a misspelt setting beside them is still
// refused by name.
func TestKEDAsKeysAreAcceptedAndOthersRefused(t *testing.T) {
	md := map[string]string{"window": "10"}
	for _, k := range KEDAKeys {
		md[k] = "/etc/keda/" + k
	}
	if _, err := ParseSettings(md); err != nil {
		t.Fatalf("KEDA's keys refused: %v", err)
	}
	md["windw"] = "10"
	_, err := ParseSettings(md)
	var me *MetadataError
	if !errors.As(err, &me) || me.Key != "windw" {
		t.Errorf("a misspelt key beside KEDA's: %v, want windw refused", err)
	}
}

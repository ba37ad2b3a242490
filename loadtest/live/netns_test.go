package live

import (
	"strings"
	"testing"
)

// Outside the namespace the harness made for itself, it refuses to touch
// an interface: no pod address ever lands on the machine's own.
func TestAddressesOnlyInsideTheHarnessNamespace(t *testing.T) {
	t.Setenv(insideEnv, "")
	if err := addAddress("10.80.1.1"); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Errorf("addAddress outside the namespace: %v, want a refusal", err)
	}
	if err := SetUpLoopback(); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Errorf("SetUpLoopback outside the namespace: %v, want a refusal", err)
	}
}

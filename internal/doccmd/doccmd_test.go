package doccmd

import (
	"slices"
	"testing"
)

func TestCommandsAreTheShBlocksLines(t *testing.T) {
	md := "text\n\n```sh\nmake demo   # the demo\nhelm install artt charts/artt \\\n  --set a=b\n```\n\n" +
		"```yaml\nkind: Pod\n```\n\n   ```sh\n   kubectl label node worker-1 x=y\n   ```\n"
	want := []string{"make demo", "helm install artt charts/artt --set a=b", "kubectl label node worker-1 x=y"}
	if got := Commands(md); !slices.Equal(got, want) {
		t.Fatalf("Commands = %q, want %q", got, want)
	}
}

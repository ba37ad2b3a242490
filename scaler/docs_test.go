package scaler

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/scaler.md's trigger metadata table documents exactly the keys the
// parser reads: a key added to the parser without a row, or a row left
// for a key the parser no longer reads, fails here.
func TestDocsDocumentEveryMetadataKey(t *testing.T) {
	doc, err := os.ReadFile("../docs/scaler.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Trigger metadata\n")
	if !ok {
		t.Fatal("docs/scaler.md has no \"## Trigger metadata\" section")
	}
	table, _, _ = strings.Cut(strings.TrimPrefix(table, "\n"), "\n\n")
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\|")
	var documented []string
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		documented = append(documented, m[1])
	}
	if len(documented) == 0 {
		t.Fatal("no rows found in docs/scaler.md's trigger metadata table")
	}
	read := readKeys()
	if len(read) < 20 {
		t.Fatalf("the parser read only %d keys from empty metadata: %v", len(read), read)
	}
	for _, k := range read {
		if !slices.Contains(documented, k) {
			t.Errorf("metadata key %q is read by the parser but has no row in docs/scaler.md's table", k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(read, k) && !slices.Contains(keysKEDAOwns, k) {
			t.Errorf("docs/scaler.md's table documents %q, which the parser does not read", k)
		}
	}
}

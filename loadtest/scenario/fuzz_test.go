package scenario

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes, seeded with the shipped scenarios, to the
// scenario parser: an error or a scenario that validates again, never a
// panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("name: x\nduration: -1s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("a parsed scenario does not validate again: %v", err)
		}
	})
}

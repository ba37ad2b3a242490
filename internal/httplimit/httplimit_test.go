package httplimit

import (
	"io"
	"strings"
	"testing"
)

// The bound lets an answer of exactly its size through.
func TestLimitedBodyReadsUpToTheBound(t *testing.T) {
	for _, size := range []int{0, 5, 300} {
		b := &limitedBody{ReadCloser: io.NopCloser(strings.NewReader(strings.Repeat("x", size))), left: 300, limit: 300}
		got, err := io.ReadAll(b)
		if err != nil || len(got) != size {
			t.Errorf("a %d-byte body under a 300-byte bound: %d bytes, %v", size, len(got), err)
		}
	}
	b := &limitedBody{ReadCloser: io.NopCloser(strings.NewReader(strings.Repeat("x", 301))), left: 300, limit: 300}
	if got, err := io.ReadAll(b); err == nil || len(got) != 300 {
		t.Errorf("a 301-byte body under a 300-byte bound: %d bytes, %v", len(got), err)
	}
}

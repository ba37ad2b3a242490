package threshold

import (
	"fmt"
	"testing"
)

// BenchmarkUpdate measures one threshold update (a RANSAC fit, the bound
// updates and the threshold) per window size, ARTT beside the LARE baseline.
func BenchmarkUpdate(b *testing.B) {
	for _, n := range []int{40, 240, 2400} {
		window := noisy(1, n, 100, 0.2, 10)
		window[n/2] = 5000
		for _, mode := range []Mode{ModeARTT, ModeLARE} {
			b.Run(fmt.Sprintf("window=%d/mode=%s", n, mode), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Mode = mode
				tr, err := NewTracker(cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tr.Update(window, 0.01); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

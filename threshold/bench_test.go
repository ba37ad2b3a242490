package threshold

import (
	"fmt"
	"testing"
)

// BenchmarkUpdate measures one threshold update (a RANSAC fit, the bound
// updates and the threshold) per window size, ARTT's default lead
// normalisation and its predictive one beside the LARE baseline.
func BenchmarkUpdate(b *testing.B) {
	for _, n := range []int{40, 240, 2400} {
		window := noisy(1, n, 100, 0.2, 10)
		window[n/2] = 5000
		for _, c := range []struct {
			mode Mode
			norm Normalization
		}{{ModeARTT, NormalizationLead}, {ModeARTT, NormalizationPredictive}, {ModeLARE, NormalizationLead}} {
			b.Run(fmt.Sprintf("window=%d/mode=%s/normalization=%s", n, c.mode, c.norm), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Mode, cfg.Normalization = c.mode, c.norm
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

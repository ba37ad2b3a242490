package outcome

import (
	"fmt"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// LoadStep is a change of a scenario's offered load, as the time plots
// mark it.
type LoadStep struct {
	At          float64 // seconds into the run
	Description string
}

// maxMarkedSteps is as many load changes as a time plot marks one by one:
// more (a ramp of small steps) are marked at the first and the last.
const maxMarkedSteps = 6

// LoadSteps are a steps workload's changes of rate after the start; none
// for a constant rate or a trace, whose every row is a change.
func LoadSteps(w scenario.Workload) []LoadStep {
	if w.Type != "steps" || len(w.Steps) < 2 {
		return nil
	}
	var out []LoadStep
	for i := 1; i < len(w.Steps); i++ {
		from, to := w.Steps[i-1].Rate, w.Steps[i].Rate
		if from == to {
			continue
		}
		out = append(out, LoadStep{At: w.Steps[i].At.Seconds(), Description: fmt.Sprintf("load %g → %g/s", from, to)})
	}
	if len(out) > maxMarkedSteps {
		first, last := out[0], out[len(out)-1]
		first.Description = fmt.Sprintf("ramp from %g/s begins", w.Steps[0].Rate)
		last.Description = fmt.Sprintf("ramp ends at %g/s", w.Steps[len(w.Steps)-1].Rate)
		out = []LoadStep{first, last}
	}
	return out
}

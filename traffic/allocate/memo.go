package allocate

import (
	"slices"
	"sync"

	"github.com/artt-dev/artt/traffic"
	"github.com/artt-dev/artt/traffic/ntam"
)

// solutionMemo remembers each component's last NTAM problem and solution.
// A reallocation after a pod or node event reuses the cycle's
// measurements, so most components see exactly the problem they saw
// before; they skip the slow-link filter and the min-cost flow, and only
// the components the event touched are solved again. On a 10,000-pod fleet
// that is the difference between a full cycle and a few components. The
// inputs are compared exactly (supplies, demands, every link's delay and
// whether it was measured), never by a hash, so a reuse is always the
// answer NTAM would give.
//
// A component whose problem changed, as every component's does on a
// periodic cycle, is solved starting from its last routing
// (ntam.Problem.Previous): the traffic moved a little, so the new optimum
// is near the old one, and among equally cheap routings the old one is
// kept rather than traffic moved for nothing.
type solutionMemo struct {
	mu   sync.Mutex
	last map[string]memoEntry
	// reused and solved count the answers given from memory and computed.
	reused, solved int
	// cold solves every changed problem from scratch, ignoring the last
	// routing: the baseline the benchmarks measure the warm start against.
	cold bool
}

type memoEntry struct {
	cfg               ntam.Config
	supplies, demands []traffic.Amount
	delays            []float64 // supplies × demands; NaN where unmeasured
	// spare is the delay matrix of the problem solved before this one,
	// which nothing reads any more: delayBuffer hands it out for the next
	// problem's, so a periodic cycle writes each component's matrix (ten
	// thousand delays on a fleet) into an array it has already.
	spare []float64
	sol   ntam.Solution
}

func newSolutionMemo() *solutionMemo {
	return &solutionMemo{last: make(map[string]memoEntry)}
}

// solve returns NTAM's solution for the component's problem, from memory
// when the problem is the one last solved. The problem must carry its
// Delays, which the memo keeps: the caller must not change them after.
func (m *solutionMemo) solve(component string, cfg ntam.Config, p ntam.Problem) (ntam.Solution, error) {
	delays := p.Delays
	m.mu.Lock()
	e, ok := m.last[component]
	if ok && e.cfg == cfg && slices.Equal(e.supplies, p.Supplies) && slices.Equal(e.demands, p.Demands) && sameDelays(e.delays, delays) {
		m.reused++
		e.spare = delays // a copy of what the entry holds: free again
		m.last[component] = e
		m.mu.Unlock()
		return cloneSolution(e.sol), nil
	}
	m.solved++
	if ok && !m.cold {
		p.Previous = e.sol.Sources
	}
	m.mu.Unlock()
	sol, err := ntam.Solve(cfg, p)
	if err != nil {
		return ntam.Solution{}, err
	}
	m.mu.Lock()
	m.last[component] = memoEntry{cfg: cfg, supplies: slices.Clone(p.Supplies), demands: slices.Clone(p.Demands), delays: delays, spare: e.delays, sol: cloneSolution(sol)}
	m.mu.Unlock()
	return sol, nil
}

// delayBuffer returns an array for the component's next delay matrix: the
// one its problem before last was given, nil if there is none. It hands
// each array out once; solve takes it back with the problem.
func (m *solutionMemo) delayBuffer(component string) []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.last[component]
	if !ok {
		return nil
	}
	spare := e.spare
	e.spare = nil
	m.last[component] = e
	return spare
}

// forget drops components no longer routed, so memory follows the cluster.
func (m *solutionMemo) forget(keep map[string]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for c := range m.last {
		if !keep[c] {
			delete(m.last, c)
		}
	}
}

// sameDelays is slices.Equal with NaN (unmeasured) equal to NaN.
func sameDelays(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

// cloneSolution copies the slices a caller could modify.
func cloneSolution(s ntam.Solution) ntam.Solution {
	out := s
	out.Sources = make([]traffic.Source, len(s.Sources))
	for i, src := range s.Sources {
		out.Sources[i] = src
		out.Sources[i].To = slices.Clone(src.To)
	}
	out.Notes = slices.Clone(s.Notes)
	return out
}

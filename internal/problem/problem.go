// Package problem is how ARTT's checks (artt-traffic --preflight and
// artt-scaler check) report what keeps them from working on a cluster: one
// line per problem, naming the object, what is wrong and the remedy.
package problem

import (
	"fmt"
	"io"
)

// Problem is one thing that keeps a component from doing what it was asked
// to, or from doing it well. A blocking problem leaves something undone.
type Problem struct {
	Object, Wrong, Remedy string
	Blocking              bool
}

func (p Problem) String() string {
	kind := "warning"
	if p.Blocking {
		kind = "error"
	}
	return fmt.Sprintf("%s: %s: %s; %s", kind, p.Object, p.Wrong, p.Remedy)
}

// Print writes one line per problem, or ok alone when there is none, and
// says whether any problem is blocking.
func Print(w io.Writer, problems []Problem, ok string) (blocking bool) {
	for _, p := range problems {
		fmt.Fprintln(w, p)
		blocking = blocking || p.Blocking
	}
	if len(problems) == 0 {
		fmt.Fprintln(w, "ok: "+ok)
	}
	return blocking
}

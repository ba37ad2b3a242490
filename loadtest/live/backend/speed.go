package backend

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// SpeedPath is where the harness puts a node's new speed (a body such as
// "0.32"), as a node's CPU slows or recovers mid-run (node-slowdown):
// requests that start from then on cost their work divided by it.
const SpeedPath = "/speed"

func (s *Server) putSpeed(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 64))
	if err == nil {
		err = s.SetSpeed(strings.TrimSpace(string(b)))
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// SetSpeed sets the node's speed from its text.
func (s *Server) SetSpeed(text string) error {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("speed %q: want a number > 0", text)
	}
	s.speed.Store(math.Float64bits(v))
	return nil
}

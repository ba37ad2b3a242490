// Package logging builds the structured loggers ARTT's commands share, so
// --log-level and --log-format mean the same everywhere.
package logging

import (
	"fmt"
	"io"
	"log/slog"
)

// New returns a slog.Logger writing to w at level ("debug", "info", "warn",
// "error") in format ("json" or "text"); errors name the flag and value.
func New(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level = %q: %w", level, err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format = %q: must be json or text", format)
}

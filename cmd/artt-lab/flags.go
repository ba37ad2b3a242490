package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"time"
)

// parseFlags parses args into fs, its errors told as flagError tells them.
func parseFlags(fs *flag.FlagSet, args []string) error {
	help := quiet(fs)
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err, help)
	}
	return nil
}

// quiet stops fs printing its own errors and usage, and returns where it
// would have printed them.
func quiet(fs *flag.FlagSet) io.Writer {
	help := fs.Output()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return help
}

// flagError is fs.Parse's error as artt-lab tells it: -h prints the flags
// to help; a bad flag is one line naming the flag, the value and what it
// takes, instead of the flag package's bare "parse error" above the whole
// usage.
func flagError(fs *flag.FlagSet, err error, help io.Writer) error {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(help, "Flags of artt-lab %s:\n", fs.Name())
		fs.SetOutput(help)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return err
	}
	return fmt.Errorf("%s: %s (artt-lab %s -h lists its flags)", fs.Name(), describeFlagError(fs, err), fs.Name())
}

// badValue is the flag package's error for a value that does not parse.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for flag -([^:]+): `)

// describeFlagError says what a flag takes where the flag package says
// only that its value did not parse.
func describeFlagError(fs *flag.FlagSet, err error) string {
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	value, name := m[1], m[2]
	want := "a valid value"
	if g, ok := fs.Lookup(name).Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case time.Duration:
			want = "a duration such as 90s, 15m or 24h (h is the largest unit)"
		case int, int64, uint, uint64:
			want = "a whole number"
		case float64:
			want = "a number"
		case bool:
			want = "true or false"
		}
	}
	return fmt.Sprintf("--%s = %q: want %s", name, value, want)
}

// Package version says which build of an ARTT command is running: the
// release set at link time (make images links it), or the module version Go
// recorded, and the Go toolchain and platform.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at link time with
// -ldflags "-X github.com/artt-dev/artt/internal/version.Version=v0.1.0".
var Version string

// String is "<command> <version> (<go version>, <os>/<arch>)".
func String(command string) string {
	v := Version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("%s %s (%s, %s/%s)", command, v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

package loadtest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadFile reads a regular file of at most limit bytes: a device, a pipe
// or a directory named in place of a scenario or a trace is refused before
// anything is read, and so is a file that grows past the limit as it is read.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", path, kind(info.Mode()))
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s has %d bytes, more than the %d allowed", path, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew past the %d bytes allowed as it was read", path, limit)
	}
	return data, nil
}

// kind names what a path that is not a regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

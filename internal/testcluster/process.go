package testcluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// StartProcess runs a component with its output appended to dir/<name>.log and
// returns a function that stops it (an interrupt, then up to 5 s).
func StartProcess(ctx context.Context, dir, name, path string, env []string, args ...string) (func(), error) {
	log, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return func() {}, err
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		log.Close()
		return func() {}, fmt.Errorf("%s: %w", name, err)
	}
	return func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		log.Close()
	}, nil
}

// FreePort is a loopback port nothing listens on now.
func FreePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// FreePorts are n distinct loopback ports nothing listens on now: each is
// held until all are found, where n calls of FreePort may repeat one.
func FreePorts(n int) []int {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// FreeAddress is 127.0.0.1:FreePort().
func FreeAddress() string { return fmt.Sprintf("127.0.0.1:%d", FreePort()) }

// RunKeepingLogs runs the tests of m, then removes dir, where the
// components wrote their logs, if they passed, and keeps it, saying where,
// if they did not.
func RunKeepingLogs(m interface{ Run() int }, dir string) int {
	code := m.Run()
	if code != 0 {
		fmt.Fprintln(os.Stderr, "component logs kept in", dir)
	} else {
		os.RemoveAll(dir)
	}
	return code
}

// Build builds one of ARTT's commands (cmd/<command>) from this checkout
// into dir and returns the binary's path.
func Build(dir, command string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, command)
	cmd := exec.Command("go", "build", "-o", out, "./cmd/"+command)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", command, err, b)
	}
	return out, nil
}

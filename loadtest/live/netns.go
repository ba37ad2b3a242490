package live

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// insideEnv marks a process the live loop re-executed in a network
// namespace of its own.
const insideEnv = "ARTT_LIVE_NETNS"

// InNamespace reports whether this process is the re-executed one.
func InNamespace() bool { return os.Getenv(insideEnv) == "1" }

// ReexecInNamespace runs this program again, with the same arguments,
// inside a new network namespace whose loopback is up, and returns its
// exit code. Every process the live loop starts inherits the namespace, so
// no pod address is ever added to this machine's own interfaces and no
// traffic leaves it (shared/INFRA.md's item on pod addresses). Ctrl-C and
// SIGTERM are passed on, so the child stops cleanly.
func ReexecInNamespace() (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 1, err
	}
	cmd := exec.Command(self, os.Args[1:]...)
	cmd.Env = append(os.Environ(), insideEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("a new network namespace (needs root): %w", err)
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), nil
	}
	return 0, err
}

// SetUpLoopback brings up the namespace's loopback. Only inside the
// namespace: it changes the interface of whichever namespace it runs in.
func SetUpLoopback() error {
	if !InNamespace() {
		return fmt.Errorf("refusing to change interfaces outside the live loop's own network namespace (%s unset)", insideEnv)
	}
	return ip("link", "set", "lo", "up")
}

// addAddress puts a pod's address on the namespace's loopback; an address
// already there (a slot's earlier pod, an earlier harness in the same
// namespace) is kept.
func addAddress(addr string) error {
	if !InNamespace() {
		return fmt.Errorf("refusing to add %s outside the live loop's own network namespace", addr)
	}
	return ip("addr", "replace", addr+"/32", "dev", "lo")
}

func ip(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %v: %v: %s", args, err, out)
	}
	return nil
}

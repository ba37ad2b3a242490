package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

var mainModule = regexp.MustCompile(`(?m)^module github\.com/artt-dev/artt\s*$`)

// RepoRoot is the checkout the test runs in: the nearest directory at or
// above the working directory (go test runs each package in its own) whose
// go.mod declares ARTT's main module. It reads the disk rather than the
// source's path, which -trimpath builds do not keep.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && mainModule.Match(b) {
			return dir, nil
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no directory at or above %s holds the go.mod of github.com/artt-dev/artt", wd)
		}
	}
}

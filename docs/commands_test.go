// Package docs_test runs the shell commands the README and docs/ show a
// reader, from the repository's root as a reader would type them, and
// says of each one it cannot run here why: a command that stops working, or
// a new one nobody classified, fails.
package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/artt-dev/artt/internal/doccmd"
)

// notHere are the commands that need what a test cannot have, by prefix,
// with the reason.
var notHere = []struct{ prefix, why string }{
	{"kubectl ", "needs a cluster: docs/install.md's run on a kube-apiserver of their own in test/e2e (TestInstallCommandsRunOnAKubeAPIServer), and the manifests are built and checked by deploy's and charts/charttest's tests"},
	{"helm install ", "needs a cluster (charts/charttest installs the chart on envtest with Helm's SDK)"},
	{"hack/node-probe-scrape-config.sh", "reads a cluster's nodes with kubectl: test/e2e's TestInstallCommandsRunOnAKubeAPIServer runs it"},
	{"docker ", "needs a container engine"},
	{"skopeo ", "needs a registry"},
	{"make test", "is the test command itself"},
	{"make check", "is the test command's fast lane, which runs this package's tests too"},
	{"make images", "deploy/images' tests build the same images (make test-images)"},
	{"make live", "runs for about forty minutes as root; make test-live runs the live loop's short check in CI"},
	{"bin/artt-live ", "needs root and the live loop's components; make test-live runs the harness in CI"},
	{"go run ./cmd/artt-lab import ", "needs a cluster's Prometheus"},
	{"go run ./cmd/artt-lab run shop.yaml", "runs what the import before it writes"},
	{"go run ./cmd/artt-lab run my-scenario.yaml", "a reader's own scenario file"},
	{"go run ./cmd/artt-lab validate my-scenario.yaml", "a reader's own scenario file"},
	{"go run ./cmd/artt-lab run artt-hpa-nasdaq ", "needs the NASDAQ trace, which is not shipped"},
}

// commands are the commands of every sh block in the README and docs/,
// keyed by the file they stand in.
func commands(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range append([]string{"../README.md"}, files...) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = doccmd.Commands(string(text))
	}
	return out
}

func TestEveryDocumentedCommandRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make demo and artt-lab scenarios")
	}
	ran := 0
	for file, cmds := range commands(t) {
		for _, c := range cmds {
			skipped := false
			for _, n := range notHere {
				if strings.HasPrefix(c, n.prefix) {
					t.Logf("%s: not run here: %s: %s", file, c, n.why)
					skipped = true
					break
				}
			}
			if skipped {
				continue
			}
			cmd := exec.Command("sh", "-c", c)
			cmd.Dir = ".."
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %s: %v\n%s", file, c, err, out)
				continue
			}
			ran++
			t.Logf("%s: ran %s", file, c)
		}
	}
	if ran < 4 {
		t.Errorf("ran %d commands: the README's and docs' sh blocks were not found", ran)
	}
	checkFigures(t)
}

var (
	namedPlot    = regexp.MustCompile("`([a-z0-9-]+\\.png)`")
	embeddedPlot = regexp.MustCompile(`!\[[^\]]*\]\(([^)]+\.png)\)`)
)

// checkFigures checks, once make demo has run, that every plot the README
// names in backquotes is among the files it wrote in out/demo, and that
// every image the docs embed exists.
func checkFigures(t *testing.T) {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	named := namedPlot.FindAllStringSubmatch(string(readme), -1)
	if len(named) == 0 {
		t.Error("the README names no plot")
	}
	for _, m := range named {
		if _, err := os.Stat(filepath.Join("..", "out", "demo", m[1])); err != nil {
			t.Errorf("the README names %s; make demo did not write it: %v", m[1], err)
		}
	}
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range docs {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range embeddedPlot.FindAllStringSubmatch(string(text), -1) {
			if _, err := os.Stat(m[1]); err != nil {
				t.Errorf("%s embeds %s, which does not exist", f, m[1])
			}
		}
	}
}

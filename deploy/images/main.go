// Command images builds ARTT's container images without a Docker engine:
// each is a static binary on an empty base with CA certificates and a
// numeric non-root user, written as an OCI image layout and as a tarball
// that `docker load` and `podman load` accept. `make images` runs it from
// the repository root:
//
//	go run ./deploy/images --out out/images --version v0.1.0
//
// It builds the binaries itself (CGO off, trimmed paths, the version linked
// in) from the repository the working directory is in.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("out", "out/images", "directory for the OCI layouts and tarballs")
	version := flag.String("version", "v0.1.0", "version linked into the binaries and tagged on the images")
	repo := flag.String("repository", "ghcr.io/artt-dev", "image repository prefix")
	source := flag.String("source", ".", "the ARTT repository to build from")
	caFile := flag.String("ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "CA bundle to install as /etc/ssl/certs/ca-certificates.crt")
	commands := flag.String("commands", "artt-scaler,artt-traffic,artt-scheduler", "commands to build, comma-separated (artt-scheduler from the scheduler module)")
	flag.Parse()
	if err := run(*out, *version, *repo, *source, *caFile, strings.Split(*commands, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(out, version, repo, source, caFile string, commands []string) error {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("--ca-certificates: %w", err)
	}
	for _, cmd := range commands {
		bin, err := buildBinary(source, cmd, version, filepath.Join(out, "bin"))
		if err != nil {
			return err
		}
		ref := fmt.Sprintf("%s/%s:%s", repo, cmd, version)
		layout, tarball, err := writeImage(out, cmd, ref, bin, ca)
		if err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		fmt.Printf("%s: OCI layout %s, tarball %s\n", ref, layout, tarball)
	}
	return nil
}
